package view

// Change is one part of the page an event changed. The set is sealed: the
// types of this file. The stream renders each as an out-of-band swap.
type Change interface{ change() }

// TurnAdded appends a new turn (with the user's message) to the chat.
type TurnAdded struct{ Turn *Turn }

// ItemAdded appends an item (message, tool call, error) to a turn.
type ItemAdded struct {
	Turn *Turn
	Item Item
}

// ItemReplaced redraws an item that already is on the page: a message that
// became final, a tool call that ended. Turn is the item's turn.
type ItemReplaced struct {
	Turn *Turn
	Item Item
}

// DeltaAppended appends streamed text to a message that is on the page.
type DeltaAppended struct {
	Turn    *Turn
	Message *Message
	Delta   string
}

// TurnUpdated redraws a turn's footer: status, error, usage.
type TurnUpdated struct{ Turn *Turn }

// HandoffChanged redraws the build requests under a turn's answer (a
// plan the turn asked to build was requested, approved or superseded).
type HandoffChanged struct{ Turn *Turn }

// TurnFolded redraws a turn as its summary line (see Conversation.Folded).
type TurnFolded struct{ Turn *Turn }

// ComposerChanged redraws what of the composer follows the turns: the
// current mode and the Stop control.
type ComposerChanged struct{}

// ArtifactsChanged redraws the artifacts panel (artifacts and handoffs).
type ArtifactsChanged struct{}

// DelegationChanged redraws the whole sub-agent panel (a new delegation).
type DelegationChanged struct{}

// NodeChanged redraws one node of the delegation and the panel's summary.
type NodeChanged struct{ Node *Node }

// StrategyChanged redraws the strategy graph.
type StrategyChanged struct{}

// TitleChanged redraws the conversation's title.
type TitleChanged struct{}

func (TurnAdded) change()         {}
func (ItemAdded) change()         {}
func (ItemReplaced) change()      {}
func (DeltaAppended) change()     {}
func (TurnUpdated) change()       {}
func (TurnFolded) change()        {}
func (HandoffChanged) change()    {}
func (ComposerChanged) change()   {}
func (ArtifactsChanged) change()  {}
func (DelegationChanged) change() {}
func (NodeChanged) change()       {}
func (StrategyChanged) change()   {}
func (TitleChanged) change()      {}
