//go:build darwin && cgo

package webgpu

/*
#cgo CFLAGS: -x objective-c
#cgo LDFLAGS: -framework Metal -framework Foundation
#import <Metal/Metal.h>

// kb_metal_working_set is the default Metal device's recommendedMaxWorkingSetSize: the
// memory it can use without hurting performance (0 without a device).
static unsigned long long kb_metal_working_set(void) {
	id<MTLDevice> d = MTLCreateSystemDefaultDevice();
	if (d == nil) {
		return 0;
	}
	unsigned long long n = [d recommendedMaxWorkingSetSize];
	[d release];
	return n;
}
*/
import "C"

// metalWorkingSet is the default Metal device's recommended working set (0 unknown).
// Not compiled on the Linux machines this was written on.
func metalWorkingSet() int64 { return int64(C.kb_metal_working_set()) }
