#pragma once
/// Symbol visibility for libember: everything is hidden unless marked EMBER_API.

#if defined(_WIN32)
#define EMBER_API __declspec(dllexport)
#else
#define EMBER_API __attribute__((visibility("default")))
#endif

#define EMBER_LIKELY(x) __builtin_expect(!!(x), 1)
#define EMBER_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define EMBER_NOINLINE __attribute__((noinline))
#define EMBER_ALWAYS_INLINE inline __attribute__((always_inline))
#define EMBER_CONCAT_IMPL(a, b) a##b
#define EMBER_CONCAT(a, b) EMBER_CONCAT_IMPL(a, b)
#define EMBER_UID EMBER_CONCAT(ember_uid_, __COUNTER__)
