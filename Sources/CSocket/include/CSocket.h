// The two socket calls glibc declares only under _GNU_SOURCE, which Swift's Glibc module is not
// built with: wrapped here, where that macro is set, so Swift never declares them by hand.
#ifndef SPEAK_CSOCKET_H
#define SPEAK_CSOCKET_H

#include <sys/types.h>

/// `accept4(listener, NULL, NULL, SOCK_CLOEXEC)`, with the peer's address in `address` (up to
/// `*length` bytes) when `address` is not NULL: a spawned worker never inherits a client.
int speak_accept_close_on_exec(int listener, void *address, unsigned int *length);

/// The user id of the process at the other end of a Unix socket (`SO_PEERCRED`); -1 with errno.
int speak_peer_user(int descriptor, uid_t *user);

#endif
