#include "napi_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

typedef napi_status (*ErrorMaker)(napi_env, napi_value, napi_value, napi_value *);

static napi_value throw_with(napi_env env, ErrorMaker make, const char *code, const char *format, va_list args) {
  char message[512];
  vsnprintf(message, sizeof(message), format, args);
  napi_value text, error, code_value = NULL;
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &text);
  if (code != NULL) napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &code_value);
  make(env, code_value, text, &error);
  napi_throw(env, error);
  return NULL;
}

napi_value throw_coded_error(napi_env env, const char *code, const char *format, ...) {
  va_list args;
  va_start(args, format);
  throw_with(env, napi_create_error, code, format, args);
  va_end(args);
  return NULL;
}

int get_args(napi_env env, napi_callback_info info, const char *function_name, size_t expected, napi_value *argv) {
  size_t argc = expected;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < expected) {
    throw_type_error(env, "%s expects %zu argument%s, got %zu", function_name, expected, expected == 1 ? "" : "s", argc);
    return -1;
  }
  return 0;
}

napi_value throw_error(napi_env env, const char *format, ...) {
  va_list args;
  va_start(args, format);
  throw_with(env, napi_create_error, NULL, format, args);
  va_end(args);
  return NULL;
}

napi_value throw_range_error(napi_env env, const char *format, ...) {
  va_list args;
  va_start(args, format);
  throw_with(env, napi_create_range_error, NULL, format, args);
  va_end(args);
  return NULL;
}

napi_value throw_type_error(napi_env env, const char *format, ...) {
  va_list args;
  va_start(args, format);
  throw_with(env, napi_create_type_error, NULL, format, args);
  va_end(args);
  return NULL;
}

int arg_int(napi_env env, napi_value value, const char *name, int64_t min, int64_t max, int64_t *out) {
  napi_valuetype type;
  double d;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_number) {
    throw_type_error(env, "%s must be a number", name);
    return -1;
  }
  napi_get_value_double(env, value, &d);
  if (!(d >= (double)min && d <= (double)max) || d != (double)(int64_t)d) {
    throw_range_error(env, "%s must be an integer in %lld..%lld, got %g", name, (long long)min, (long long)max, d);
    return -1;
  }
  *out = (int64_t)d;
  return 0;
}

int arg_bool(napi_env env, napi_value value, const char *name, int *out) {
  bool b;
  if (napi_get_value_bool(env, value, &b) != napi_ok) {
    throw_type_error(env, "%s must be a boolean", name);
    return -1;
  }
  *out = b ? 1 : 0;
  return 0;
}

int arg_bytes(napi_env env, napi_value value, const char *name, int64_t exact_length, uint8_t **data, size_t *length) {
  bool is_typed;
  napi_typedarray_type type;
  size_t count, offset;
  napi_value buffer;
  void *pointer;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed) {
    throw_type_error(env, "%s must be a Uint8Array", name);
    return -1;
  }
  napi_get_typedarray_info(env, value, &type, &count, &pointer, &buffer, &offset);
  if (type != napi_uint8_array && type != napi_uint8_clamped_array) {
    throw_type_error(env, "%s must be a Uint8Array", name);
    return -1;
  }
  if (exact_length >= 0 && (int64_t)count != exact_length) {
    throw_range_error(env, "%s has %zu bytes, expected %lld", name, count, (long long)exact_length);
    return -1;
  }
  if (pointer == NULL && count > 0) {
    throw_error(env, "%s has no backing memory (detached buffer?)", name);
    return -1;
  }
  *data = (uint8_t *)pointer;
  *length = count;
  return 0;
}

int arg_bigint_u64(napi_env env, napi_value value, const char *name, uint64_t *out) {
  bool lossless;
  if (napi_get_value_bigint_uint64(env, value, out, &lossless) != napi_ok || !lossless) {
    throw_type_error(env, "%s must be a bigint in 0..2^64-1", name);
    return -1;
  }
  return 0;
}

int arg_external(napi_env env, napi_value value, const char *name, const napi_type_tag *tag, void **out) {
  napi_valuetype type;
  bool tagged = false;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external ||
      napi_check_object_type_tag(env, value, tag, &tagged) != napi_ok || !tagged) {
    throw_type_error(env, "%s is not a handle of the right kind", name);
    return -1;
  }
  napi_get_value_external(env, value, out);
  return 0;
}

int is_null_or_undefined(napi_env env, napi_value value) {
  napi_valuetype type;
  napi_typeof(env, value, &type);
  return type == napi_null || type == napi_undefined;
}

napi_value make_int(napi_env env, int64_t v) {
  napi_value r;
  napi_create_int64(env, v, &r);
  return r;
}
napi_value make_double(napi_env env, double v) {
  napi_value r;
  napi_create_double(env, v, &r);
  return r;
}
napi_value make_bool(napi_env env, int v) {
  napi_value r;
  napi_get_boolean(env, v != 0, &r);
  return r;
}
napi_value make_bigint(napi_env env, uint64_t v) {
  napi_value r;
  napi_create_bigint_uint64(env, v, &r);
  return r;
}
napi_value make_string(napi_env env, const char *s) {
  napi_value r;
  napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &r);
  return r;
}
void set_named(napi_env env, napi_value object, const char *name, napi_value value) {
  napi_set_named_property(env, object, name, value);
}

double monotonic_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
