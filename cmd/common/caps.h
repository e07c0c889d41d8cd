#ifndef CAPS_H
#define CAPS_H

#include <stdio.h>

#include "libcpc.h"

/* Print the -h capabilities listing: interface, events, attributes. */
void caps_print(cpc_t *cpc, FILE *out);

#endif /* CAPS_H */
