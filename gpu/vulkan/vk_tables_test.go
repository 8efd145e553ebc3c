//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"reflect"
	"testing"
)

// TestLoaderTables: each entry point is loaded by exactly one table (required, optional or
// vkExt's), and every entry-point field of vk and vkExt has its table entry.
func TestLoaderTables(t *testing.T) {
	f := &vk{}
	names := map[string]int{}
	fields := map[*uintptr]string{}
	for _, table := range []map[string]*uintptr{f.required(), f.optional(), f.ext.entries()} {
		for name, p := range table {
			names[name]++
			if other, ok := fields[p]; ok {
				t.Errorf("%s and %s load the same field", name, other)
			}
			fields[p] = name
		}
	}
	for name, n := range names {
		if n > 1 {
			t.Errorf("%s is loaded by %d tables", name, n)
		}
	}
	for _, v := range []reflect.Value{reflect.ValueOf(f).Elem(), reflect.ValueOf(&f.ext).Elem()} {
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).Kind() != reflect.Uintptr {
				continue
			}
			if _, ok := fields[(*uintptr)(v.Field(i).Addr().UnsafePointer())]; !ok {
				t.Errorf("%s.%s is in no table", v.Type().Name(), v.Type().Field(i).Name)
			}
		}
	}
}
