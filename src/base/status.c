/* Names and messages for sp_status_t, generated from the one list in status.h. */
#include "status.h"

const char *sp_status_str(sp_status_t status)
{
    switch (status) {
#define SP_STATUS_MSG(name, value, msg)                                                            \
    case name:                                                                                     \
        return msg;
        SP_STATUS_LIST(SP_STATUS_MSG)
#undef SP_STATUS_MSG
    }
    return "unknown status";
}

const char *sp_status_name(sp_status_t status)
{
    switch (status) {
#define SP_STATUS_NAME(name, value, msg)                                                           \
    case name:                                                                                     \
        return #name;
        SP_STATUS_LIST(SP_STATUS_NAME)
#undef SP_STATUS_NAME
    }
    return "SP_ERR_UNKNOWN";
}

int sp_status_exit_code(sp_status_t status)
{
    switch (status) {
    case SP_OK:
        return 0;
    case SP_ERR_INVALID:
    case SP_ERR_EXISTS:
    case SP_ERR_MISMATCH:
    case SP_ERR_FORMAT:
        return 2;
    default:
        return 1;
    }
}
