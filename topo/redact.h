/* Credentials inside the values of captured environment variables: an allow-listed variable
 * (NCCL_*, OMPI_*, SLURM_*) can still hold a URL with a password, an ssh wrapper with one on its
 * command line, or a free-text comment with a token. Pure C (unit tested). */
#ifndef SP_REDACT_H
#define SP_REDACT_H

#include <stddef.h>

/* Copy in to out (outlen bytes, always terminated) with credentials replaced by "<redacted>":
 * the user-info of a URL (scheme://user:pass@host -> scheme://<redacted>@host), the argument
 * after -p, --password, --passwd or --pass (sshpass -p SECRET), and the value of a key=value
 * pair whose key ends in password, passwd, pwd, pass, token, secret or apikey (any case). */
void sp_redact_value(const char *in, char *out, size_t outlen);

#endif
