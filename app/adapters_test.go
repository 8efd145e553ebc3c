package app

// addAdapter adds the file through the section and waits for it.
func (h *harness) addAdapter(path string) {
	h.t.Helper()
	done := h.ui.adapters.AddFiles([]string{path}, false)
	h.wait("the adapter to be read", done)
}
