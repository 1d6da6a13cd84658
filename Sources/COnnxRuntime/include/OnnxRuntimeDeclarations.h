// The few entries of ONNX Runtime's C API that speak calls, declared in speak's own words: the
// API is a table of function pointers (OrtApi) that only ever grows at its end, so each entry is
// reached by its position. OnnxRuntimeLayoutTests checks these positions against an installed
// onnxruntime_c_api.h when one is there. The types are opaque; names carry a Speak prefix so that
// this header and ONNX Runtime's can be compiled together.
#ifndef SPEAK_ONNXRUNTIME_DECLARATIONS_H
#define SPEAK_ONNXRUNTIME_DECLARATIONS_H

#include <stddef.h>
#include <stdint.h>

typedef struct SpeakOrtEnv SpeakOrtEnv;
typedef struct SpeakOrtStatus SpeakOrtStatus;
typedef struct SpeakOrtMemoryInfo SpeakOrtMemoryInfo;
typedef struct SpeakOrtSession SpeakOrtSession;
typedef struct SpeakOrtSessionOptions SpeakOrtSessionOptions;
typedef struct SpeakOrtValue SpeakOrtValue;
typedef struct SpeakOrtTensorTypeAndShapeInfo SpeakOrtTensorTypeAndShapeInfo;
typedef struct SpeakOrtThreadingOptions SpeakOrtThreadingOptions;
typedef struct SpeakOrtRunOptions SpeakOrtRunOptions;

/// The API version asked of OrtGetApiBase()->GetApi: old enough for every ONNX Runtime 1.16 and
/// later; every entry below is older.
#define SPEAK_ORT_API_VERSION 16

/// Element types (ONNX's TensorProto numbering) and the CPU allocator settings used.
enum {
    SpeakOrtFloat = 1,
    SpeakOrtInt64 = 7,
    SpeakOrtArenaAllocator = 1,
    SpeakOrtMemTypeDefault = 0,
    SpeakOrtLoggingLevelError = 3,
};

/// Each entry's position in the OrtApi table.
enum SpeakOrtApiIndex {
    SpeakOrtIndexCreateStatus = 0,
    SpeakOrtIndexGetErrorCode = 1,
    SpeakOrtIndexGetErrorMessage = 2,
    SpeakOrtIndexCreateEnv = 3,
    SpeakOrtIndexCreateSession = 7,
    SpeakOrtIndexRun = 9,
    SpeakOrtIndexCreateRunOptions = 39,
    SpeakOrtIndexCreateSessionOptions = 10,
    SpeakOrtIndexDisableCpuMemArena = 19,
    SpeakOrtIndexSetSessionGraphOptimizationLevel = 23,
    SpeakOrtIndexSetIntraOpNumThreads = 24,
    SpeakOrtIndexSetInterOpNumThreads = 25,
    SpeakOrtIndexCreateTensorWithDataAsOrtValue = 49,
    SpeakOrtIndexGetTensorMutableData = 51,
    SpeakOrtIndexGetDimensionsCount = 61,
    SpeakOrtIndexGetDimensions = 62,
    SpeakOrtIndexGetTensorTypeAndShape = 65,
    SpeakOrtIndexCreateCpuMemoryInfo = 69,
    SpeakOrtIndexReleaseEnv = 92,
    SpeakOrtIndexReleaseStatus = 93,
    SpeakOrtIndexReleaseMemoryInfo = 94,
    SpeakOrtIndexReleaseSession = 95,
    SpeakOrtIndexReleaseValue = 96,
    SpeakOrtIndexReleaseRunOptions = 97,
    SpeakOrtIndexReleaseTensorTypeAndShapeInfo = 99,
    SpeakOrtIndexReleaseSessionOptions = 100,
    SpeakOrtIndexCreateEnvWithGlobalThreadPools = 119,
    SpeakOrtIndexDisablePerSessionThreads = 120,
    SpeakOrtIndexCreateThreadingOptions = 121,
    SpeakOrtIndexReleaseThreadingOptions = 122,
    SpeakOrtIndexAddSessionConfigEntry = 130,
    SpeakOrtIndexSetGlobalIntraOpNumThreads = 147,
    SpeakOrtIndexSetGlobalInterOpNumThreads = 148,
    SpeakOrtIndexSetGlobalSpinControl = 149,
    SpeakOrtIndexAddRunConfigEntry = 165,
};

typedef SpeakOrtStatus *(*SpeakOrtCreateStatus)(int code, const char *message);
typedef int (*SpeakOrtGetErrorCode)(const SpeakOrtStatus *status);
typedef const char *(*SpeakOrtGetErrorMessage)(const SpeakOrtStatus *status);
typedef SpeakOrtStatus *(*SpeakOrtCreateEnv)(int logging_level, const char *log_id, SpeakOrtEnv **out);
typedef SpeakOrtStatus *(*SpeakOrtCreateSession)(
    const SpeakOrtEnv *env, const char *model_path, const SpeakOrtSessionOptions *options, SpeakOrtSession **out);
typedef SpeakOrtStatus *(*SpeakOrtRun)(
    SpeakOrtSession *session, const SpeakOrtRunOptions *run_options, const char *const *input_names,
    const SpeakOrtValue *const *inputs, size_t input_count, const char *const *output_names, size_t output_count,
    SpeakOrtValue **outputs);
typedef SpeakOrtStatus *(*SpeakOrtCreateRunOptions)(SpeakOrtRunOptions **out);
typedef SpeakOrtStatus *(*SpeakOrtAddRunConfigEntry)(SpeakOrtRunOptions *options, const char *key, const char *value);
typedef void (*SpeakOrtReleaseRunOptions)(SpeakOrtRunOptions *value);
typedef SpeakOrtStatus *(*SpeakOrtCreateSessionOptions)(SpeakOrtSessionOptions **out);
typedef SpeakOrtStatus *(*SpeakOrtCreateEnvWithGlobalThreadPools)(
    int logging_level, const char *log_id, const SpeakOrtThreadingOptions *threading, SpeakOrtEnv **out);
typedef SpeakOrtStatus *(*SpeakOrtCreateThreadingOptions)(SpeakOrtThreadingOptions **out);
typedef SpeakOrtStatus *(*SpeakOrtSetGlobalNumThreads)(SpeakOrtThreadingOptions *threading, int threads);
typedef SpeakOrtStatus *(*SpeakOrtSetGlobalSpinControl)(SpeakOrtThreadingOptions *threading, int allow_spinning);
typedef void (*SpeakOrtReleaseThreadingOptions)(SpeakOrtThreadingOptions *value);
/// DisablePerSessionThreads and DisableCpuMemArena.
typedef SpeakOrtStatus *(*SpeakOrtSessionOptionsSwitch)(SpeakOrtSessionOptions *options);
typedef SpeakOrtStatus *(*SpeakOrtSetGraphOptimizationLevel)(SpeakOrtSessionOptions *options, int level);
typedef SpeakOrtStatus *(*SpeakOrtSetNumThreads)(SpeakOrtSessionOptions *options, int threads);
typedef SpeakOrtStatus *(*SpeakOrtCreateTensorWithData)(
    const SpeakOrtMemoryInfo *info, void *data, size_t byte_count, const int64_t *shape, size_t rank,
    int element_type, SpeakOrtValue **out);
typedef SpeakOrtStatus *(*SpeakOrtGetTensorMutableData)(SpeakOrtValue *value, void **out);
typedef SpeakOrtStatus *(*SpeakOrtGetDimensionsCount)(const SpeakOrtTensorTypeAndShapeInfo *info, size_t *out);
typedef SpeakOrtStatus *(*SpeakOrtGetDimensions)(
    const SpeakOrtTensorTypeAndShapeInfo *info, int64_t *dimensions, size_t count);
typedef SpeakOrtStatus *(*SpeakOrtGetTensorTypeAndShape)(
    const SpeakOrtValue *value, SpeakOrtTensorTypeAndShapeInfo **out);
typedef SpeakOrtStatus *(*SpeakOrtCreateCpuMemoryInfo)(int allocator, int memory_type, SpeakOrtMemoryInfo **out);
typedef void (*SpeakOrtReleaseEnv)(SpeakOrtEnv *value);
typedef void (*SpeakOrtReleaseStatus)(SpeakOrtStatus *value);
typedef void (*SpeakOrtReleaseMemoryInfo)(SpeakOrtMemoryInfo *value);
typedef void (*SpeakOrtReleaseSession)(SpeakOrtSession *value);
typedef void (*SpeakOrtReleaseValue)(SpeakOrtValue *value);
typedef void (*SpeakOrtReleaseTensorTypeAndShapeInfo)(SpeakOrtTensorTypeAndShapeInfo *value);
typedef void (*SpeakOrtReleaseSessionOptions)(SpeakOrtSessionOptions *value);
typedef SpeakOrtStatus *(*SpeakOrtAddSessionConfigEntry)(
    SpeakOrtSessionOptions *options, const char *key, const char *value);

#endif
