//go:build cgo

package webgpu

import (
	"math"
	"os"
	"reflect"
	"strings"

	"github.com/cogentcore/webgpu/wgpu"
)

// The sentinels of webgpu.h: a required limit at one of these means "undefined", and
// wgpu-native then gives the device WebGPU's default (256 MiB buffers) instead of the
// adapter's limit. Vulkan adapters report maxBufferSize as 2⁶⁴−1 ("no limit").
const (
	undefinedU32 = math.MaxUint32
	undefinedU64 = math.MaxUint64
	// unknownMemoryCap bounds a u64 limit the adapter leaves unbounded where the device
	// memory is unknown.
	unknownMemoryCap = 1 << 48
	// unboundedU32 replaces a u32 maximum the adapter reports as 2³²−1.
	unboundedU32 = 1 << 31
)

// requiredLimits turns the adapter's limits ad into the limits to request for a device,
// each a finite value the adapter supports: a u64 limit at 2⁶⁴−1 becomes the device memory
// memBytes (2⁴⁸ when unknown, memBytes <= 0), a u32 maximum at 2³²−1 becomes 2³¹, and a
// u32 minimum (an alignment) at 2³²−1 WebGPU's default 256. The storage and uniform binding
// limits are at most the buffer limit.
func requiredLimits(ad wgpu.Limits, memBytes int64) wgpu.Limits {
	capU64 := uint64(unknownMemoryCap)
	if memBytes > 0 {
		capU64 = uint64(memBytes)
	}
	l := ad
	v := reflect.ValueOf(&l).Elem()
	t := v.Type()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Uint64:
			if f.Uint() == undefinedU64 {
				f.SetUint(capU64)
			}
		case reflect.Uint32:
			if f.Uint() != undefinedU32 {
				continue
			}
			if strings.HasPrefix(t.Field(i).Name, "Min") {
				f.SetUint(defaultOffsetAlignment)
			} else {
				f.SetUint(unboundedU32)
			}
		}
	}
	l.MaxStorageBufferBindingSize = min(l.MaxStorageBufferBindingSize, l.MaxBufferSize)
	l.MaxUniformBufferBindingSize = min(l.MaxUniformBufferBindingSize, l.MaxBufferSize)
	return l
}

// deviceLimits are the limits the kernels work within: those requested (req), lowered where
// the device reports less (dev; a sentinel there counts as no report).
func deviceLimits(req, dev wgpu.Limits) wgpu.Limits {
	l := req
	lower := func(r *uint64, d uint64) {
		if d != undefinedU64 && d > 0 {
			*r = min(*r, d)
		}
	}
	lower(&l.MaxBufferSize, dev.MaxBufferSize)
	lower(&l.MaxStorageBufferBindingSize, dev.MaxStorageBufferBindingSize)
	lower(&l.MaxUniformBufferBindingSize, dev.MaxUniformBufferBindingSize)
	return l
}

// EnvLimits names the environment variable that, set to "default", opens every WebGPU
// device with WebGPU's default limits (Options.DefaultLimits: 256 MiB buffers, 128 MiB
// bindings), and lists the adapters with them: it shows what a generation does on a small
// device. Other values are ignored.
const EnvLimits = "KLEINBILD_WEBGPU_LIMITS"

func envDefaultLimits() bool { return strings.TrimSpace(os.Getenv(EnvLimits)) == "default" }

// openLimits are the limits a device of an adapter with limits ad and memory memBytes is
// opened with: requiredLimits, lowered to WebGPU's defaults with defaults set.
func openLimits(ad wgpu.Limits, memBytes int64, defaults bool) wgpu.Limits {
	l := requiredLimits(ad, memBytes)
	if defaults {
		l = defaultLimits(l)
	}
	return l
}
