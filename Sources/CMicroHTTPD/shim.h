/* microhttpd.h expects these to be included first. */
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* The client's address as text ("127.0.0.1", "::1"), or "" when it has none (a Unix socket).
   MHD_get_connection_info is variadic, which Swift cannot call. */
#include <arpa/inet.h>
#include <netinet/in.h>
static inline void speak_client_address(struct MHD_Connection *connection, char *text, socklen_t size) {
    text[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *address = info ? info->client_addr : NULL;
    if (address && address->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, text, size);
    else if (address && address->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, text, size);
}

/* mallopt and malloc_trim, to bound what glibc's allocator keeps after large requests. */
#include <malloc.h>

/* MHD_set_connection_option and MHD_get_connection_info are variadic, which Swift cannot call. */
static inline void speak_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}
static inline int speak_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* MHD_upgrade_action is variadic, which Swift cannot call: closes an upgraded connection's socket. */
static inline enum MHD_Result speak_upgrade_close(struct MHD_UpgradeResponseHandle *handle) {
    return MHD_upgrade_action(handle, MHD_UPGRADE_ACTION_CLOSE);
}
