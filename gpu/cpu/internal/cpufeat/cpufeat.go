// Package cpufeat reports the x86 vector extensions the cpu package's kernels can use, from
// CPUID and the register state the OS saves (XGETBV). On other architectures, and with the
// purego build tag, it reports none. The answer is computed once at start-up.
package cpufeat

var avx2fma = detect()

// AVX2FMA reports AVX2 and FMA3 with ymm state saved by the OS.
func AVX2FMA() bool { return avx2fma }
