#include "CSherpaOnnx.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define SPEAK_RESOLVE(field, symbol)                                                         \
    do {                                                                                     \
        api->field = (__typeof__(api->field))dlsym(handle, #symbol);                         \
        if (api->field == NULL) {                                                            \
            snprintf(error, error_size, "%s has no %s (not sherpa-onnx 2.x?)", path, #symbol); \
            memset(api, 0, sizeof(*api));                                                    \
            return -1;                                                                       \
        }                                                                                    \
    } while (0)

int speak_sherpa_onnx_open(const char *path, SpeakSherpaOnnx *api, char *error, size_t error_size) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_size, "%s", reason ? reason : "dlopen failed");
        return -1;
    }
    SPEAK_RESOLVE(GetVersionStr, SherpaOnnxGetVersionStr);
    SPEAK_RESOLVE(CreateOfflineTts, SherpaOnnxCreateOfflineTts);
    SPEAK_RESOLVE(DestroyOfflineTts, SherpaOnnxDestroyOfflineTts);
    SPEAK_RESOLVE(OfflineTtsSampleRate, SherpaOnnxOfflineTtsSampleRate);
    SPEAK_RESOLVE(OfflineTtsNumSpeakers, SherpaOnnxOfflineTtsNumSpeakers);
    SPEAK_RESOLVE(OfflineTtsGenerateWithConfig, SherpaOnnxOfflineTtsGenerateWithConfig);
    SPEAK_RESOLVE(DestroyOfflineTtsGeneratedAudio, SherpaOnnxDestroyOfflineTtsGeneratedAudio);
    return 0;
}
