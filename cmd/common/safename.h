/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Names from users made inert: the one rule by which every name the
 * commands print (a process's or thread's name, its arguments, a cgroup's
 * name, an event's name from sysfs) reaches a terminal, whoever chose it.
 *
 * A character is shown as it is unless it is:
 * - a control character: C0 (U+0000-U+001F), DEL (U+007F) or C1
 *   (U+0080-U+009F), which a terminal may take as a command (ESC, CSI);
 * - a bidirectional control (U+061C, U+200E, U+200F, U+202A-U+202E,
 *   U+2066-U+2069) or a line or paragraph separator (U+2028, U+2029),
 *   which make text read in another order than it is written;
 * - a byte that begins no well-formed UTF-8 sequence (RFC 3629: no
 *   overlong form, no surrogate, nothing above U+10FFFF).
 * Such a character is written as \xNN, each of its bytes in two lower
 * case hexadecimal digits; a backslash stays as it is (systemd writes its
 * own escapes in unit names so: "dev-disk-by\x2duuid").
 */
#ifndef SAFENAME_H
#define SAFENAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The code point of a byte that begins no well-formed UTF-8 sequence. */
#define SAFENAME_BAD UINT32_MAX

/*
 * The character at s (which is not at its terminating NUL): its length
 * in bytes (1 for a bad byte), its code point (SAFENAME_BAD for a bad
 * byte) in *cp, and whether it may be shown as it is in *shown.
 */
size_t safename_char(const char *s, uint32_t *cp, bool *shown);

/* Whether s may be shown as it is, whole. */
bool safename_inert(const char *s);

/*
 * s by the rule into out (size bytes, NUL-terminated when size > 0), cut
 * before a character or escape that does not fit; the length of the
 * whole result, as strlcpy returns it.
 */
size_t safename(char *out, size_t size, const char *s);

/* s by the rule, to f. */
void safename_fputs(const char *s, FILE *f);

#endif /* SAFENAME_H */
