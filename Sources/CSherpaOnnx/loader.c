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

/* ONNX Runtime's entry point: OrtGetApiBase() returns these two function pointers, the one part of
 * its C API whose layout never changes. Only the version string is read here. */
typedef struct SpeakOrtApiBase {
    const void *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} SpeakOrtApiBase;

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
    /* Searched in the library and what it loaded: the ONNX Runtime (or install-piper's shim) beside it. */
    const SpeakOrtApiBase *(*base)(void) = (const SpeakOrtApiBase *(*)(void))dlsym(handle, "OrtGetApiBase");
    const SpeakOrtApiBase *api_base = base ? base() : NULL;
    api->onnxruntime_version = api_base && api_base->GetVersionString ? api_base->GetVersionString() : NULL;
    return 0;
}
