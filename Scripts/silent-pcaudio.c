// libspeak-silent-pcaudio.so, built from this file by Scripts/install-silent-pcaudio, answers for
// libpcaudio.so.0 inside speak, which never lets espeak-ng play audio itself
// (AUDIO_OUTPUT_SYNCHRONOUS hands speak the samples). Opened before libespeak-ng, it satisfies
// that library's dependency on pcaudio by its soname, so the real pcaudio and the ~30 libraries
// behind it (PulseAudio and X11 clients, sndfile, FLAC, opus...) are never mapped: opening
// espeak-ng takes 0.3 ms instead of 3-8. Every function fails, as pcaudio's do when no audio
// device opens; espeak-ng calls none of them in synchronous mode.

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

struct audio_object;

// As pcaudiolib 1.x declares them (its audio.h; the format is an enum, passed as an int).
struct audio_object *create_audio_device_object(const char *device, const char *application_name,
                                                const char *description) {
    (void)device, (void)application_name, (void)description;
    return NULL;
}

int audio_object_open(struct audio_object *object, int format, uint32_t rate, uint8_t channels) {
    (void)object, (void)format, (void)rate, (void)channels;
    return ENODEV;
}

void audio_object_close(struct audio_object *object) { (void)object; }

void audio_object_destroy(struct audio_object *object) { (void)object; }

int audio_object_write(struct audio_object *object, const void *data, size_t bytes) {
    (void)object, (void)data, (void)bytes;
    return ENODEV;
}

int audio_object_drain(struct audio_object *object) {
    (void)object;
    return ENODEV;
}

int audio_object_flush(struct audio_object *object) {
    (void)object;
    return ENODEV;
}

const char *audio_object_strerror(struct audio_object *object, int error) {
    (void)object, (void)error;
    return "speak plays audio itself: espeak-ng's own output is not available";
}
