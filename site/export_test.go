package site

// RefPage is a chapter's per-page work done by the implementation first
// written (ref_test.go), for the tests of package site_test.
var RefPage = refPage
