"""python -m pbem"""

from pbem.entry import console

console()
