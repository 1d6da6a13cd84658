#include "CEspeakNG.h"

#include <dlfcn.h>
#include <string.h>

// The soname Debian's libespeak-ng1 installs (the -dev package's .so link may be absent).
static const char *const library = "libespeak-ng.so.1";

#define SPEAK_RESOLVE(field, symbol)                                                      \
    do {                                                                                  \
        api->field = (__typeof__(api->field))dlsym(handle, #symbol);                      \
        if (api->field == NULL) {                                                         \
            snprintf(error, error_size, "%s has no %s (not espeak-ng 1.5x?)", library, #symbol); \
            memset(api, 0, sizeof(*api));                                                 \
            return -1;                                                                    \
        }                                                                                 \
    } while (0)

int speak_espeak_open(SpeakEspeak *api, char *error, size_t error_size) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_size, "%s", reason ? reason : "dlopen failed");
        return -1;
    }
    SPEAK_RESOLVE(Initialize, espeak_Initialize);
    SPEAK_RESOLVE(SetSynthCallback, espeak_SetSynthCallback);
    SPEAK_RESOLVE(SetVoiceByName, espeak_SetVoiceByName);
    SPEAK_RESOLVE(SetVoiceByFile, espeak_SetVoiceByFile);
    SPEAK_RESOLVE(Info, espeak_Info);
    SPEAK_RESOLVE(SetParameter, espeak_SetParameter);
    SPEAK_RESOLVE(SetPhonemeTrace, espeak_SetPhonemeTrace);
    SPEAK_RESOLVE(Synth, espeak_Synth);
    SPEAK_RESOLVE(TextToPhonemes, espeak_TextToPhonemes);
    return 0;
}
