/* microhttpd.h expects these to be included first. */
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* accept4 is declared only under _GNU_SOURCE, which Swift's Glibc module is not built with. The
   server accepts its own connections close-on-exec, so worker processes never inherit one. */
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

/* mallopt and malloc_trim, to bound what glibc's allocator keeps after large requests. */
#include <malloc.h>
