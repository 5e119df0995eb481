package wdk

import "time"

// Site is one VEuPathDB site's WDK service. BaseURL ends in "/service"; the
// path segment before it differs per site and cannot be derived from the
// host, so the table names it.
type Site struct {
	ID          string
	DisplayName string
	BaseURL     string
	// ProjectID is WDK's project id. The portal's differs between
	// deployments (EuPathDB or UniDB); ServiceInfo reads the live one.
	ProjectID string
	// Timeout bounds one request to this site (0: Config.RequestTimeout).
	// The portal fans out to every component site and answers slower.
	Timeout time.Duration
}

// DefaultSites returns the VEuPathDB sites Strategist knows, portal first.
// It returns a fresh slice each call so callers may change it.
func DefaultSites() []Site {
	return []Site{
		{ID: "veupathdb", DisplayName: "VEuPathDB", BaseURL: "https://veupathdb.org/veupathdb/service", ProjectID: "EuPathDB", Timeout: 120 * time.Second},
		{ID: "plasmodb", DisplayName: "PlasmoDB", BaseURL: "https://plasmodb.org/plasmo/service", ProjectID: "PlasmoDB"},
		{ID: "toxodb", DisplayName: "ToxoDB", BaseURL: "https://toxodb.org/toxo/service", ProjectID: "ToxoDB"},
		{ID: "cryptodb", DisplayName: "CryptoDB", BaseURL: "https://cryptodb.org/cryptodb/service", ProjectID: "CryptoDB"},
		{ID: "piroplasmadb", DisplayName: "PiroplasmaDB", BaseURL: "https://piroplasmadb.org/piro/service", ProjectID: "PiroplasmaDB"},
		{ID: "giardiadb", DisplayName: "GiardiaDB", BaseURL: "https://giardiadb.org/giardiadb/service", ProjectID: "GiardiaDB"},
		{ID: "amoebadb", DisplayName: "AmoebaDB", BaseURL: "https://amoebadb.org/amoeba/service", ProjectID: "AmoebaDB"},
		{ID: "microsporidiadb", DisplayName: "MicrosporidiaDB", BaseURL: "https://microsporidiadb.org/micro/service", ProjectID: "MicrosporidiaDB"},
		{ID: "tritrypdb", DisplayName: "TriTrypDB", BaseURL: "https://tritrypdb.org/tritrypdb/service", ProjectID: "TriTrypDB"},
		{ID: "trichdb", DisplayName: "TrichDB", BaseURL: "https://trichdb.org/trichdb/service", ProjectID: "TrichDB"},
		{ID: "fungidb", DisplayName: "FungiDB", BaseURL: "https://fungidb.org/fungidb/service", ProjectID: "FungiDB"},
		{ID: "hostdb", DisplayName: "HostDB", BaseURL: "https://hostdb.org/hostdb/service", ProjectID: "HostDB"},
		{ID: "vectorbase", DisplayName: "VectorBase", BaseURL: "https://vectorbase.org/vectorbase/service", ProjectID: "VectorBase"},
		{ID: "orthomcl", DisplayName: "OrthoMCL", BaseURL: "https://orthomcl.org/orthomcl/service", ProjectID: "OrthoMCL"},
	}
}
