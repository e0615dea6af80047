"""python -m pbem"""

from pbem.cli import main

main()
