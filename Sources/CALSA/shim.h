#include <alsa/asoundlib.h>

/* ALSA reports errors on stderr through a variadic handler Swift cannot write; speak reports
   them itself, one line each, so this handler keeps ALSA quiet. */
static void speak_alsa_ignore_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void speak_alsa_silence_errors(void) { snd_lib_error_set_handler(speak_alsa_ignore_error); }
