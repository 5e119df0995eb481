package eventlog

import (
	"errors"
	"strategist/internal/event"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrSlowSubscriber ends a subscription whose buffer was full when the
// broker published: the subscriber fell behind, and rather than let it block
// every other subscriber the broker let it go. It reconnects and replays
// from the log.
var ErrSlowSubscriber = errors.New("eventlog: subscriber too slow, dropped")

// DefaultSubscriberBuffer is how many records a subscription holds before
// its subscriber counts as slow.
const DefaultSubscriberBuffer = 512

// Broker delivers published records to the subscribers of their
// conversation, inside one server process. Publish never blocks: a
// subscriber whose buffer is full is dropped (its channel closed, Err
// ErrSlowSubscriber), so one slow client never holds up the others.
//
// Concurrency: mu guards subs and last; a subscription's channel is sent on
// and closed only under mu, so a send never meets a closed channel.
type Broker struct {
	buffer int

	mu   sync.Mutex
	subs map[string]map[*Subscription]struct{} // by conversation
	last map[string]int64                      // highest seq published to a watched conversation
}

// NewBroker returns a broker whose subscriptions buffer buffer records
// (DefaultSubscriberBuffer when buffer <= 0).
func NewBroker(buffer int) *Broker {
	if buffer <= 0 {
		buffer = DefaultSubscriberBuffer
	}
	return &Broker{buffer: buffer, subs: map[string]map[*Subscription]struct{}{}, last: map[string]int64{}}
}

// Published is a record as the broker delivers it: one value per published
// record, shared by every subscriber of its conversation, so that what
// every stream sends of it is made once (SSE). Subscribers must not modify
// it.
type Published struct {
	event.Record

	frame atomic.Pointer[[]byte]
}

// NewPublished wraps a record read from the log (a replay) the way the
// broker wraps live ones.
func NewPublished(r event.Record) *Published { return &Published{Record: r} }

// SSE returns the record's frame on the JSON event stream: its seq as the
// id, its type as the event name and its payload as the data line (payloads
// are JSON from the event table, which never holds a raw newline). It is
// built on first use and then shared by every stream that sends the record.
//
// The streams of a conversation wake together and all ask at once, so the
// first use takes no lock: with a sync.Once the others queued on its mutex
// and were woken one after another. Two that race may both build it; one
// frame wins.
func (p *Published) SSE() []byte {
	if f := p.frame.Load(); f != nil {
		return *f
	}
	b := make([]byte, 0, len(p.Type)+len(p.Payload)+32)
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, p.Seq, 10)
	b = append(b, "\nevent: "...)
	b = append(b, p.Type...)
	b = append(b, "\ndata: "...)
	b = append(b, p.Payload...)
	b = append(b, "\n\n"...)
	if p.frame.CompareAndSwap(nil, &b) {
		return b
	}
	return *p.frame.Load()
}

// Subscription receives the records of one conversation published after it
// was made, in strictly increasing seq. They may have gaps (another
// process's events arriving after this process's later ones, a lost
// notification); Stream turns a subscription into the exact sequence.
type Subscription struct {
	broker         *Broker
	conversationID string
	ch             chan *Published // pointers: an idle subscription's buffer is 8 bytes a slot
	err            error           // guarded by broker.mu
	closed         bool            // guarded by broker.mu
}

// Subscribe starts receiving a conversation's records. The caller must
// Close the subscription.
func (b *Broker) Subscribe(conversationID string) *Subscription {
	conversationID = strings.ToLower(conversationID) // ids are uuids, whatever case a URL used
	s := &Subscription{broker: b, conversationID: conversationID, ch: make(chan *Published, b.buffer)}
	b.mu.Lock()
	defer b.mu.Unlock()
	set := b.subs[conversationID]
	if set == nil {
		set = map[*Subscription]struct{}{}
		b.subs[conversationID] = set
	}
	set[s] = struct{}{}
	return s
}

// Records is the subscription's channel. It is closed when the subscription
// is closed or dropped; Err then says which.
func (s *Subscription) Records() <-chan *Published { return s.ch }

// Err returns ErrSlowSubscriber once the broker dropped the subscription,
// else nil.
func (s *Subscription) Err() error {
	s.broker.mu.Lock()
	defer s.broker.mu.Unlock()
	return s.err
}

// Close ends the subscription; it is safe to call more than once and after
// a drop.
func (s *Subscription) Close() {
	s.broker.mu.Lock()
	defer s.broker.mu.Unlock()
	s.broker.removeLocked(s, nil)
}

// removeLocked unregisters s and closes its channel with err as the reason.
func (b *Broker) removeLocked(s *Subscription, err error) {
	if s.closed {
		return
	}
	s.closed, s.err = true, err
	close(s.ch)
	set := b.subs[s.conversationID]
	delete(set, s)
	if len(set) == 0 {
		delete(b.subs, s.conversationID)
		delete(b.last, s.conversationID)
	}
}

// Publish delivers records to their conversations' subscribers, in the
// order given, each as one *Published shared by all of them. It never
// blocks.
//
// A record whose seq is not above the highest already published to its
// conversation is not delivered: each subscription's records strictly
// increase. Nothing a subscriber needs is lost by that: a record is
// published only once durable and each conversation commits in sequence
// order, so everything below a published record is in the log, where a
// new subscriber replays it and Stream fills gaps from.
func (b *Broker) Publish(records ...event.Record) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range records {
		id := strings.ToLower(r.ConversationID)
		set := b.subs[id]
		if len(set) == 0 {
			continue
		}
		if r.Seq <= b.last[id] {
			continue
		}
		b.last[id] = r.Seq
		p := &Published{Record: r}
		for s := range set {
			select {
			case s.ch <- p:
			default:
				b.removeLocked(s, ErrSlowSubscriber)
			}
		}
	}
}

// Watched returns the conversations (lower-case ids) that have subscribers, each with the
// highest sequence number published to it since it got its first
// subscriber (0 if none yet).
func (b *Broker) Watched() map[string]int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]int64, len(b.subs))
	for id := range b.subs {
		out[id] = b.last[id]
	}
	return out
}

// Watching reports whether a conversation has subscribers in this process.
func (b *Broker) Watching(conversationID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs[strings.ToLower(conversationID)]) > 0
}
