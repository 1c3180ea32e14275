/* Every attribute of one group of a result file as key/value strings: a small generic reader
 * for the offline tools (compare's "what differs"), on top of the result module's attribute
 * reader. */
#ifndef SP_H5ATTRS_H
#define SP_H5ATTRS_H

#include "kv.h"

/*
 * The attributes of group `group` of the file at path, in name order, at most max of them:
 * strings as they are, integers in decimal, anything unreadable as "". Returns how many were
 * read: 0 when the file cannot be opened or has no such group (not an error: older files lack
 * some groups). The caller owns kv (max entries).
 */
int sp_h5attrs_read(const char *path, const char *group, sp_kv_t *kv, int max);

#endif
