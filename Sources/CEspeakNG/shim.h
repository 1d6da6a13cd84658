#include <stdio.h>
#include <stddef.h>
#include <espeak-ng/speak_lib.h>
