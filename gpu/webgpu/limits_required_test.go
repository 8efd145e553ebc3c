//go:build cgo

package webgpu

import (
	"reflect"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"
)

// hasSentinel reports the first field of l at a webgpu.h "undefined" value.
func hasSentinel(l wgpu.Limits) string {
	v := reflect.ValueOf(l)
	for i := range v.NumField() {
		f := v.Field(i)
		if (f.Kind() == reflect.Uint64 && f.Uint() == undefinedU64) || (f.Kind() == reflect.Uint32 && f.Uint() == undefinedU32) {
			return v.Type().Field(i).Name
		}
	}
	return ""
}

// TestRequiredLimitsSentinels: an adapter reporting 2⁶⁴−1 (as NVIDIA's Vulkan driver does
// through wgpu) and 2³²−1 gets finite limits: the buffer at the device memory, or 2⁴⁸ when
// that is unknown; finite limits pass unchanged.
func TestRequiredLimitsSentinels(t *testing.T) {
	ad := wgpu.Limits{
		MaxBufferSize:                    undefinedU64,
		MaxStorageBufferBindingSize:      2 << 30,
		MaxUniformBufferBindingSize:      undefinedU64,
		MaxComputeWorkgroupsPerDimension: undefinedU32,
		MinStorageBufferOffsetAlignment:  undefinedU32,
		MinUniformBufferOffsetAlignment:  64,
		MaxComputeWorkgroupStorageSize:   48 << 10,
	}
	got := requiredLimits(ad, 141<<30)
	if s := hasSentinel(got); s != "" {
		t.Fatalf("%s is still the undefined sentinel: %+v", s, got)
	}
	want := map[string]uint64{
		"MaxBufferSize": 141 << 30, "MaxStorageBufferBindingSize": 2 << 30, "MaxUniformBufferBindingSize": 141 << 30,
		"MaxComputeWorkgroupsPerDimension": unboundedU32, "MinStorageBufferOffsetAlignment": 256,
		"MinUniformBufferOffsetAlignment": 64, "MaxComputeWorkgroupStorageSize": 48 << 10,
	}
	v := reflect.ValueOf(got)
	for name, w := range want {
		if g := v.FieldByName(name).Uint(); g != w {
			t.Errorf("%s = %d, want %d", name, g, w)
		}
	}
	if got := requiredLimits(ad, 0).MaxBufferSize; got != unknownMemoryCap {
		t.Errorf("unknown memory: MaxBufferSize = %d, want 2^48", got)
	}
	// A binding limit above a (finite) buffer limit is lowered to it.
	small := requiredLimits(wgpu.Limits{MaxBufferSize: 1 << 30, MaxStorageBufferBindingSize: undefinedU64}, 0)
	if small.MaxStorageBufferBindingSize != 1<<30 {
		t.Errorf("binding %d above the buffer limit 1 GiB", small.MaxStorageBufferBindingSize)
	}
	// A device reporting the sentinel (or less) for what was asked keeps the finite request.
	dl := deviceLimits(got, wgpu.Limits{MaxBufferSize: undefinedU64, MaxStorageBufferBindingSize: 1 << 30})
	if dl.MaxBufferSize != 141<<30 || dl.MaxStorageBufferBindingSize != 1<<30 {
		t.Errorf("deviceLimits = buffer %d, binding %d", dl.MaxBufferSize, dl.MaxStorageBufferBindingSize)
	}
}
