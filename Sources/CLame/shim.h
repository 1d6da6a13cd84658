#include <stdio.h>
#include <lame/lame.h>
