/* A key/value string pair: versions, properties and environment entries for /fingerprint. */
#ifndef SP_KV_H
#define SP_KV_H

typedef struct {
    char key[64];
    char value[256];
} sp_kv_t;

#endif
