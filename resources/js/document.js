// BrowserPilot: runs at document creation in every frame, in the app's isolated world.
// A fresh id per document lets the app tell a new document from the one it replaced.
window.__bpDocumentId = Date.now().toString(36) + Math.random().toString(36).slice(2);
