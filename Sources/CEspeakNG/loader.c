#include "CEspeakNG.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

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

// speak's stand-in for libpcaudio.so.0 (Scripts/silent-pcaudio.c): under the executable's prefix
// (PREFIX/bin/speak and PREFIX/libexec/speak/speak-full find PREFIX/lib/speak), then where
// Scripts/install-deps puts it.
static const char *const silent_pcaudio = "libspeak-silent-pcaudio.so";
static const char *const beside_prefix[] = {"/../lib/speak/", "/../../lib/speak/"};
static const char *const installed = "/usr/local/lib/speak/";

static int open_if_there(const char *directory, const char *subdirectory) {
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s%s%s", directory, subdirectory, silent_pcaudio);
    return access(path, R_OK) == 0 && dlopen(path, RTLD_NOW | RTLD_LOCAL) != NULL;
}

// Opens the stand-in, if there is one: the dynamic loader then takes it for libespeak-ng's
// libpcaudio.so.0 dependency (the same soname) and never maps the real one and the ~30 libraries
// behind it. Without it espeak-ng opens as it always did, mapping them all first.
static void open_silent_pcaudio(void) {
    char executable[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", executable, sizeof(executable) - 1);
    if (length > 0) {
        executable[length] = 0;
        const char *directory = dirname(executable);
        for (size_t i = 0; i < sizeof(beside_prefix) / sizeof(beside_prefix[0]); i++) {
            if (open_if_there(directory, beside_prefix[i])) return;
        }
    }
    open_if_there("", installed);
}

int speak_espeak_open(SpeakEspeak *api, char *error, size_t error_size) {
    open_silent_pcaudio();
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
    SPEAK_RESOLVE(GetCurrentVoice, espeak_GetCurrentVoice);
    return 0;
}
