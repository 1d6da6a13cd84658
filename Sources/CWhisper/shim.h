// whisper.cpp 1.8.5, as Scripts/install-whisper installs it (headers from the same release as the
// library: whisper_full_params is passed by value and must match it exactly).
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <whisper.h>
