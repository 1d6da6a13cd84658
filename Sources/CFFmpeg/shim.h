#include <errno.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>

// Function-like macros do not import into Swift: these stand for them.
static inline int speak_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int speak_averror_eof(void) { return AVERROR_EOF; }
static inline int speak_averror_enomem(void) { return AVERROR(ENOMEM); }
