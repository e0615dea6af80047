"""python -m pbem"""

from pbem.entry import main

main()
