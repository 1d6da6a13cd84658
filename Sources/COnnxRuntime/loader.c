#include "COnnxRuntime.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* What OrtGetApiBase() returns: two function pointers, the one part of the API that never moves. */
typedef struct SpeakOrtApiBase {
    const void *const *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)(void);
} SpeakOrtApiBase;

int speak_onnxruntime_open(const char *path, SpeakOnnxRuntime *api, char *error, size_t error_size) {
    memset(api, 0, sizeof(*api));
    /* ONNX Runtime 1.32 otherwise keeps a device id and a database of usage events under
       $XDG_CACHE_HOME/Microsoft, written at every load. A value the user set stays. */
    setenv("ORT_DISABLE_TELEMETRY", "1", 0);
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_size, "%s", reason ? reason : "dlopen failed");
        return -1;
    }
    const SpeakOrtApiBase *(*base)(void) = (const SpeakOrtApiBase *(*)(void))dlsym(handle, "OrtGetApiBase");
    const SpeakOrtApiBase *api_base = base ? base() : NULL;
    const void *const *table = api_base && api_base->GetApi ? api_base->GetApi(SPEAK_ORT_API_VERSION) : NULL;
    if (table == NULL) {
        snprintf(error, error_size, "%s has no ONNX Runtime C API of version %d or later", path, SPEAK_ORT_API_VERSION);
        return -1;
    }
#define SPEAK_TAKE(name) api->name = (__typeof__(api->name))table[SpeakOrtIndex##name]
    SPEAK_TAKE(CreateStatus);
    SPEAK_TAKE(GetErrorCode);
    SPEAK_TAKE(GetErrorMessage);
    SPEAK_TAKE(CreateEnv);
    SPEAK_TAKE(CreateSession);
    SPEAK_TAKE(Run);
    SPEAK_TAKE(CreateSessionOptions);
    SPEAK_TAKE(SetSessionGraphOptimizationLevel);
    SPEAK_TAKE(SetIntraOpNumThreads);
    SPEAK_TAKE(SetInterOpNumThreads);
    SPEAK_TAKE(CreateTensorWithDataAsOrtValue);
    SPEAK_TAKE(GetTensorMutableData);
    SPEAK_TAKE(GetDimensionsCount);
    SPEAK_TAKE(GetDimensions);
    SPEAK_TAKE(GetTensorTypeAndShape);
    SPEAK_TAKE(CreateCpuMemoryInfo);
    SPEAK_TAKE(ReleaseEnv);
    SPEAK_TAKE(ReleaseStatus);
    SPEAK_TAKE(ReleaseMemoryInfo);
    SPEAK_TAKE(ReleaseSession);
    SPEAK_TAKE(ReleaseValue);
    SPEAK_TAKE(ReleaseTensorTypeAndShapeInfo);
    SPEAK_TAKE(ReleaseSessionOptions);
    SPEAK_TAKE(AddSessionConfigEntry);
    SPEAK_TAKE(CreateEnvWithGlobalThreadPools);
    SPEAK_TAKE(CreateThreadingOptions);
    SPEAK_TAKE(SetGlobalIntraOpNumThreads);
    SPEAK_TAKE(SetGlobalInterOpNumThreads);
    SPEAK_TAKE(SetGlobalSpinControl);
    SPEAK_TAKE(ReleaseThreadingOptions);
    SPEAK_TAKE(DisablePerSessionThreads);
    SPEAK_TAKE(DisableCpuMemArena);
    SPEAK_TAKE(CreateRunOptions);
    SPEAK_TAKE(AddRunConfigEntry);
    SPEAK_TAKE(ReleaseRunOptions);
#undef SPEAK_TAKE
    api->version = api_base->GetVersionString ? api_base->GetVersionString() : NULL;
    return 0;
}
