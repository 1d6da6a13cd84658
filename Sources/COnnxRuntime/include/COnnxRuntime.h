// ONNX Runtime's C API, reached through dlopen: nothing links libonnxruntime.so until a Piper
// voice first speaks, and the project builds where it is not installed.
#ifndef SPEAK_CONNXRUNTIME_H
#define SPEAK_CONNXRUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include "OnnxRuntimeDeclarations.h"

typedef struct SpeakOnnxRuntime {
    SpeakOrtCreateStatus CreateStatus;
    SpeakOrtGetErrorCode GetErrorCode;
    SpeakOrtGetErrorMessage GetErrorMessage;
    SpeakOrtCreateEnv CreateEnv;
    SpeakOrtCreateSession CreateSession;
    SpeakOrtRun Run;
    SpeakOrtCreateSessionOptions CreateSessionOptions;
    SpeakOrtSetGraphOptimizationLevel SetSessionGraphOptimizationLevel;
    SpeakOrtSetNumThreads SetIntraOpNumThreads;
    SpeakOrtSetNumThreads SetInterOpNumThreads;
    SpeakOrtCreateTensorWithData CreateTensorWithDataAsOrtValue;
    SpeakOrtGetTensorMutableData GetTensorMutableData;
    SpeakOrtGetDimensionsCount GetDimensionsCount;
    SpeakOrtGetDimensions GetDimensions;
    SpeakOrtGetTensorTypeAndShape GetTensorTypeAndShape;
    SpeakOrtCreateCpuMemoryInfo CreateCpuMemoryInfo;
    SpeakOrtReleaseEnv ReleaseEnv;
    SpeakOrtReleaseStatus ReleaseStatus;
    SpeakOrtReleaseMemoryInfo ReleaseMemoryInfo;
    SpeakOrtReleaseSession ReleaseSession;
    SpeakOrtReleaseValue ReleaseValue;
    SpeakOrtReleaseTensorTypeAndShapeInfo ReleaseTensorTypeAndShapeInfo;
    SpeakOrtReleaseSessionOptions ReleaseSessionOptions;
    SpeakOrtAddSessionConfigEntry AddSessionConfigEntry;
    SpeakOrtCreateEnvWithGlobalThreadPools CreateEnvWithGlobalThreadPools;
    SpeakOrtCreateThreadingOptions CreateThreadingOptions;
    SpeakOrtSetGlobalNumThreads SetGlobalIntraOpNumThreads;
    SpeakOrtSetGlobalNumThreads SetGlobalInterOpNumThreads;
    SpeakOrtSetGlobalSpinControl SetGlobalSpinControl;
    SpeakOrtReleaseThreadingOptions ReleaseThreadingOptions;
    SpeakOrtSessionOptionsSwitch DisablePerSessionThreads;
    SpeakOrtSessionOptionsSwitch DisableCpuMemArena;
    SpeakOrtCreateRunOptions CreateRunOptions;
    SpeakOrtAddRunConfigEntry AddRunConfigEntry;
    SpeakOrtReleaseRunOptions ReleaseRunOptions;
    /// ONNX Runtime's version (`1.32.0`); static storage.
    const char *version;
} SpeakOnnxRuntime;

/// Opens the library at `path` (RTLD_NOW | RTLD_LOCAL) and fills `api` from its OrtApi table.
/// Returns 0, or -1 with a one-line reason in `error`. The handle is never closed.
int speak_onnxruntime_open(const char *path, SpeakOnnxRuntime *api, char *error, size_t error_size);

#endif
