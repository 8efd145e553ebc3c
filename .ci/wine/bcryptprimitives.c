/* A stand-in for Windows' bcryptprimitives.dll, for running the tests under wine only.
 *
 * Go's runtime (1.24 and later) takes its random bytes from ProcessPrng in
 * bcryptprimitives.dll, which Debian's wine 8.0 lacks, so no Go program starts there. This
 * DLL exports ProcessPrng over advapi32's RtlGenRandom (SystemFunction036), which wine has.
 * It is never shipped: `make windows` puts no copy of it beside kleinbild.exe.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
	while (size > 0) {
		ULONG n = size > 0x40000000 ? 0x40000000 : (ULONG)size;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		size -= n;
	}
	return TRUE;
}
