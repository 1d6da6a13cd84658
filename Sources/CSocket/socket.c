#define _GNU_SOURCE
#include "CSocket.h"

#include <stddef.h>
#include <sys/socket.h>

int speak_accept_close_on_exec(int listener, void *address, unsigned int *length) {
    socklen_t size = length ? *length : 0;
    int client = accept4(listener, address, address ? &size : NULL, SOCK_CLOEXEC);
    if (length) *length = size;
    return client;
}

int speak_peer_user(int descriptor, uid_t *user) {
    struct ucred peer;
    socklen_t size = sizeof(peer);
    if (getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0) return -1;
    *user = peer.uid;
    return 0;
}
