/* The addon's system-call errors: an Error whose `code` is the errno's name
 * (EACCES, ENOENT, ...) and whose message names the call (tun.c). */
#ifndef NATIVE_TUN_ERRORS_H
#define NATIVE_TUN_ERRORS_H
#include <node_api.h>

const char *errno_name(int error);
napi_value throw_errno(napi_env env, int error, const char *format, ...);

#endif /* NATIVE_TUN_ERRORS_H */
