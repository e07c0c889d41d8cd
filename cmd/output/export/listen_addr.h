/* SPDX-License-Identifier: BSD-2-Clause */
/* --listen's address, and its listening socket (listen_addr.c). */
#ifndef LISTEN_ADDR_H
#define LISTEN_ADDR_H

/* ADDR:PORT, [ADDR6]:PORT or :PORT, PORT 1 to 65535: 0, or -1. */
int listen_addr_parse(const char *arg);
/*
 * Bound and listening, close-on-exec; with no address, every address:
 * IPv6 taking IPv4 too where it can, or else IPv4. -1, said, if it
 * cannot be.
 */
int listen_addr_bind(const char *arg);

#endif /* LISTEN_ADDR_H */
