//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

// MatrixUnits describes, for each device Devices lists (in its order), the matrix units the
// fast precision runs on ("" for a device without them, such as lavapipe): what
// `kleinbild devices --selfcheck` reports, without opening the devices.
func MatrixUnits() ([]string, error) {
	f, err := loadOnce()
	if err != nil {
		return nil, err
	}
	inst, err := newInstance(f)
	if err != nil {
		return nil, err
	}
	defer vkcall(f.destroyInstance, inst, 0)
	pds, err := physicalDevices(f, inst)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(pds))
	for i, pd := range pds {
		if u, _ := probeUnits(f, inst, pd.handle, false); u != nil {
			out[i] = u.String()
		}
	}
	return out, nil
}
