/* A listening socket on a free port of loopback, for a unit test's own
 * server (an HTTP client's peer, a stub node): the kernel picks the port,
 * so parallel suites never collide. Include after tests/unit/unit.h (it
 * asserts). */
#ifndef TESTS_UNIT_LISTENER_H
#define TESTS_UNIT_LISTENER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* The socket, listening with a backlog of 16; its port in *port. */
static inline int unit_listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 16), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

#endif
