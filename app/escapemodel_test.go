package app

import (
	"testing"

	"fyne.io/fyne/v2"
)

// Issue 36 item 13 (the rest): Escape closes the Model dialog while its token field, the
// download's variant menu, its model combination or the device and precision menus have the
// focus (a focused select or password field took Escape and did nothing).
func TestEscapeClosesTheModelDialogFromItsMenus(t *testing.T) {
	h := viewerHarness(t, 1)
	u := h.ui
	c := u.Win.Canvas()
	for i := 0; i < 5; i++ {
		h.openDeviceSettings()
		p := u.model.DLPanels[len(u.model.DLPanels)-1]
		f := []fyne.Focusable{p.Token, p.Variant, u.model.Form.Combo, u.model.Dev.Sel, u.model.Dev.Precision}[i]
		c.Focus(f)
		typeKey(c, fyne.KeyEscape)
		h.settle()
		if c.Overlays().Top() != nil || u.model.Dlg != nil {
			t.Errorf("Escape with %T (%d) focused left the Model dialog open", f, i)
			u.model.Dlg.Hide()
			h.settle()
		}
	}
}
