//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

// MatrixUnits describes, for each device Devices lists (in its order), the matrix units the
// fast precision runs on ("" for a device without them, such as lavapipe): what
// `kleinbild devices --selfcheck` reports, without opening the devices.
func MatrixUnits() ([]string, error) {
	return eachDevice(func(f *vk, inst uintptr, pd physical) string {
		if u, _ := probeUnits(f, inst, pd.handle, false); u != nil {
			return u.String()
		}
		return ""
	})
}
