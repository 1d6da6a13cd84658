// The parts of espeak-ng's API that speak uses, reached through dlopen. libespeak-ng needs ~35
// libraries (pcaudio's PulseAudio and X11 clients, sndfile, FLAC, opus…) that take a while to
// map; linked, every `speak` would wait for them before main. Opened on first use, `speak
// --version` never maps them and `speak TEXT` maps them on another thread while it reads its
// voices. The pointers' types come from espeak-ng's own header (libespeak-ng-dev), so every
// call is still checked against its declarations.
#ifndef SPEAK_CESPEAKNG_H
#define SPEAK_CESPEAKNG_H

#include <stddef.h>
#include <stdio.h>
#include <espeak-ng/speak_lib.h>

typedef struct SpeakEspeak {
    __typeof__(espeak_Initialize) *Initialize;
    __typeof__(espeak_SetSynthCallback) *SetSynthCallback;
    __typeof__(espeak_SetVoiceByName) *SetVoiceByName;
    __typeof__(espeak_SetVoiceByFile) *SetVoiceByFile;
    __typeof__(espeak_Info) *Info;
    __typeof__(espeak_SetParameter) *SetParameter;
    __typeof__(espeak_SetPhonemeTrace) *SetPhonemeTrace;
    __typeof__(espeak_Synth) *Synth;
    __typeof__(espeak_TextToPhonemes) *TextToPhonemes;
    __typeof__(espeak_GetCurrentVoice) *GetCurrentVoice;
} SpeakEspeak;

/// Opens libespeak-ng.so.1 (RTLD_NOW | RTLD_LOCAL) and fills `api`. Returns 0, or -1 with a
/// one-line reason (dlerror's, or the missing symbol) in `error`. The handle is never closed.
int speak_espeak_open(SpeakEspeak *api, char *error, size_t error_size);

#endif
