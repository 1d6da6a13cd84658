#include <stdio.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
