// The parts of sherpa-onnx's C API that speak uses, reached through dlopen: nothing links
// libsherpa-onnx-c-api.so (or ONNX Runtime) until a Piper voice first speaks, and the project
// builds where the library is not installed. The pointers' types come from SherpaOnnxDeclarations.h,
// which a test checks against the installed wheel's header.
#ifndef SPEAK_CSHERPAONNX_H
#define SPEAK_CSHERPAONNX_H

#include <stddef.h>
#include <stdint.h>
#include "SherpaOnnxDeclarations.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SpeakSherpaOnnx {
    __typeof__(SherpaOnnxGetVersionStr) *GetVersionStr;
    __typeof__(SherpaOnnxCreateOfflineTts) *CreateOfflineTts;
    __typeof__(SherpaOnnxDestroyOfflineTts) *DestroyOfflineTts;
    __typeof__(SherpaOnnxOfflineTtsSampleRate) *OfflineTtsSampleRate;
    __typeof__(SherpaOnnxOfflineTtsNumSpeakers) *OfflineTtsNumSpeakers;
    __typeof__(SherpaOnnxOfflineTtsGenerateWithConfig) *OfflineTtsGenerateWithConfig;
    __typeof__(SherpaOnnxDestroyOfflineTtsGeneratedAudio) *DestroyOfflineTtsGeneratedAudio;
    /// The version of the ONNX Runtime the library runs on (`1.32.0`), from its `OrtGetApiBase`;
    /// NULL if it cannot be told. Static storage: valid as long as the process.
    const char *onnxruntime_version;
} SpeakSherpaOnnx;

/// Opens the library at `path` (RTLD_NOW | RTLD_LOCAL) and fills `api`. Returns 0, or -1 with a
/// one-line reason (dlerror's, or the missing symbol) in `error`. The handle is never closed.
int speak_sherpa_onnx_open(const char *path, SpeakSherpaOnnx *api, char *error, size_t error_size);

/// `api->CreateOfflineTts(config)` and `api->OfflineTtsGenerateWithConfig(tts, text, config, NULL,
/// NULL)`, catching what they throw. sherpa-onnx's C API lets C++ exceptions out (ONNX Runtime's,
/// when a damaged model fails a node at run time); uncaught, one ends the process, and a server
/// with every client. They return NULL then, with the exception's message in `error`.
const SherpaOnnxOfflineTts *speak_sherpa_onnx_create(
    const SpeakSherpaOnnx *api, const SherpaOnnxOfflineTtsConfig *config, char *error, size_t error_size);
const SherpaOnnxGeneratedAudio *speak_sherpa_onnx_generate(
    const SpeakSherpaOnnx *api, const SherpaOnnxOfflineTts *tts, const char *text,
    const SherpaOnnxGenerationConfig *config, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
