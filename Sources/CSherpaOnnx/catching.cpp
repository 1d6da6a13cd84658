// The calls into sherpa-onnx that can throw, each inside a try: see CSherpaOnnx.h.
#include "CSherpaOnnx.h"

#include <cstdio>
#include <exception>

namespace {
template <typename Call>
auto catching(Call call, char *error, size_t error_size) -> decltype(call()) {
    try {
        return call();
    } catch (const std::exception &exception) {
        std::snprintf(error, error_size, "%s", exception.what());
    } catch (...) {
        std::snprintf(error, error_size, "an exception that is not a std::exception");
    }
    return nullptr;
}
}  // namespace

extern "C" const SherpaOnnxOfflineTts *speak_sherpa_onnx_create(
    const SpeakSherpaOnnx *api, const SherpaOnnxOfflineTtsConfig *config, char *error, size_t error_size) {
    return catching([&] { return api->CreateOfflineTts(config); }, error, error_size);
}

extern "C" const SherpaOnnxGeneratedAudio *speak_sherpa_onnx_generate(
    const SpeakSherpaOnnx *api, const SherpaOnnxOfflineTts *tts, const char *text,
    const SherpaOnnxGenerationConfig *config, char *error, size_t error_size) {
    return catching(
        [&] { return api->OfflineTtsGenerateWithConfig(tts, text, config, nullptr, nullptr); }, error, error_size);
}
