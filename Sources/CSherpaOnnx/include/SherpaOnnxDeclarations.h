// The part of sherpa-onnx's C API (2.0.x) that speak calls, declared here from its documented ABI:
// three structs speak fills or reads, one opaque handle and seven functions. Blocks speak never
// sets are reserved 8-byte words of the same size, so the structs keep sherpa-onnx's layout.
// SherpaOnnxLayoutTests compiles these and the installed wheel's own header and compares the size
// and offset of every field named here: bump both together with the pin in Scripts/install-piper.
#ifndef SPEAK_SHERPA_ONNX_DECLARATIONS_H
#define SPEAK_SHERPA_ONNX_DECLARATIONS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A Piper (VITS) model and its token table.
typedef struct SherpaOnnxOfflineTtsVitsModelConfig {
    const char *model;
    const char *lexicon;
    const char *tokens;
    const char *data_dir;
    float noise_scale;
    float noise_scale_w;
    float length_scale;
    const char *dict_dir;
} SherpaOnnxOfflineTtsVitsModelConfig;

typedef struct SherpaOnnxOfflineTtsModelConfig {
    SherpaOnnxOfflineTtsVitsModelConfig vits;
    int32_t num_threads;
    int32_t debug;
    const char *provider;
    /// The other model families' configurations (Matcha, Kokoro, Kitten, ZipVoice, Pocket,
    /// Supertonic): pointers and numbers speak leaves zero.
    uint64_t other_models[44];
} SherpaOnnxOfflineTtsModelConfig;

typedef struct SherpaOnnxOfflineTtsConfig {
    SherpaOnnxOfflineTtsModelConfig model;
    const char *rule_fsts;
    int32_t max_num_sentences;
    const char *rule_fars;
    float silence_scale;
} SherpaOnnxOfflineTtsConfig;

/// One call's settings; speak hands phonemes as code points, one sentence at a time.
typedef struct SherpaOnnxGenerationConfig {
    float silence_scale;
    float speed;
    int32_t sid;
    /// Reference audio and text, step count and extra JSON (voice cloning, flow matching): unused.
    uint64_t reference[5];
    const int32_t *phoneme_codepoints;
    const int32_t *phoneme_codepoints_lens;
    int32_t phoneme_codepoints_num_sentences;
    /// Pre-tokenised input (pinyin and the like): unused.
    uint64_t tokens[3];
} SherpaOnnxGenerationConfig;

typedef struct SherpaOnnxGeneratedAudio {
    const float *samples;
    int32_t n;
    int32_t sample_rate;
} SherpaOnnxGeneratedAudio;

typedef struct SherpaOnnxOfflineTts SherpaOnnxOfflineTts;

typedef int32_t (*SherpaOnnxGeneratedAudioProgressCallbackWithArg)(
    const float *samples, int32_t n, float progress, void *arg);

const char *SherpaOnnxGetVersionStr(void);
const SherpaOnnxOfflineTts *SherpaOnnxCreateOfflineTts(const SherpaOnnxOfflineTtsConfig *config);
void SherpaOnnxDestroyOfflineTts(const SherpaOnnxOfflineTts *tts);
int32_t SherpaOnnxOfflineTtsSampleRate(const SherpaOnnxOfflineTts *tts);
int32_t SherpaOnnxOfflineTtsNumSpeakers(const SherpaOnnxOfflineTts *tts);
const SherpaOnnxGeneratedAudio *SherpaOnnxOfflineTtsGenerateWithConfig(
    const SherpaOnnxOfflineTts *tts, const char *text, const SherpaOnnxGenerationConfig *config,
    SherpaOnnxGeneratedAudioProgressCallbackWithArg callback, void *arg);
void SherpaOnnxDestroyOfflineTtsGeneratedAudio(const SherpaOnnxGeneratedAudio *audio);

#ifdef __cplusplus
}
#endif

#endif
