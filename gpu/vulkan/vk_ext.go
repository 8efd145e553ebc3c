//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import "fmt"

// vkExt holds the entry points of the later stages beyond vk's: timestamp queries (core
// 1.0), all exported by the loader. (vkGetPhysicalDeviceProperties2 is vk's, optional.)
type vkExt struct {
	createQueryPool, destroyQueryPool, cmdResetQueryPool, cmdWriteTimestamp, getQueryPoolResults uintptr
}

// load resolves the entry points through sym, the lookup of the loader file name.
func (e *vkExt) load(sym func(string) (uintptr, error), name string) error {
	for sname, p := range e.entries() {
		var err error
		if *p, err = sym(sname); err != nil || *p == 0 {
			return fmt.Errorf("vulkan: the loader %s lacks %s: %v", name, sname, err)
		}
	}
	return nil
}

// entries maps the name of each entry point to its field.
func (e *vkExt) entries() map[string]*uintptr {
	return map[string]*uintptr{
		"vkCreateQueryPool": &e.createQueryPool, "vkDestroyQueryPool": &e.destroyQueryPool,
		"vkCmdResetQueryPool": &e.cmdResetQueryPool, "vkCmdWriteTimestamp": &e.cmdWriteTimestamp,
		"vkGetQueryPoolResults": &e.getQueryPoolResults,
	}
}
