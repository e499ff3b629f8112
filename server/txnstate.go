package server

// txnState is the transaction state of a session, as ReadyForQuery reports
// it. stateImplicit is never reported: an implicit transaction always ends
// before ReadyForQuery (at the end of a simple query or at Sync).
type txnState int

const (
	stateIdle     txnState = iota // no transaction: 'I'
	stateImplicit                 // an implicit transaction around statements outside a block
	stateInBlock                  // an explicit transaction block: 'T'
	stateFailed                   // a failed transaction block, until ROLLBACK: 'E'
	numStates
)

var stateNames = [numStates]string{"Idle", "Implicit", "InBlock", "Failed"}

func (s txnState) String() string { return stateNames[s] }

// readyStatus is the ReadyForQuery status byte of a state.
func (s txnState) readyStatus() byte {
	switch s {
	case stateInBlock:
		return 'T'
	case stateFailed:
		return 'E'
	}
	return 'I'
}

// txnEvent is what happens to a session.
type txnEvent int

const (
	evBegin          txnEvent = iota // BEGIN / START TRANSACTION
	evCommit                         // COMMIT / END
	evRollback                       // ROLLBACK / ABORT
	evSavepoint                      // SAVEPOINT name
	evRelease                        // RELEASE SAVEPOINT name
	evRollbackTo                     // ROLLBACK TO SAVEPOINT name
	evPrepareTxn                     // PREPARE TRANSACTION
	evFinishPrepared                 // COMMIT PREPARED, ROLLBACK PREPARED
	evStatement                      // an ordinary statement is about to run
	evStmtError                      // an ordinary statement failed (or any error outside txn control)
	evEndOfBatch                     // end of a simple query message, or Sync
	numEvents
)

var eventNames = [numEvents]string{"BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "ROLLBACK TO",
	"PREPARE TRANSACTION", "COMMIT/ROLLBACK PREPARED", "statement", "statement error", "end of batch (Sync)"}

func (e txnEvent) String() string { return eventNames[e] }

// txnAction is the work the server does for a transition.
type txnAction int

const (
	actNone             txnAction = iota // nothing to do
	actBeginImplicit                     // open an implicit transaction, then run the statement
	actRun                               // run the statement in the open transaction
	actBeginExplicit                     // open an explicit transaction
	actPromote                           // turn the implicit transaction into a block (BEGIN after statements)
	actCommit                            // commit (COMMIT AND CHAIN opens the next block)
	actRollback                          // roll back (ROLLBACK AND CHAIN opens the next block)
	actFailedCommit                      // roll back the failed block; the tag is ROLLBACK
	actSavepoint                         // establish a savepoint
	actRelease                           // release a savepoint
	actRollbackTo                        // roll back to a savepoint
	actRollbackImplicit                  // roll back the implicit transaction after an error
	actRejectAborted                     // ERROR 25P02: the block failed, only ROLLBACK helps
	actRejectNoBlock                     // ERROR 25P01: needs a transaction block
	actPrepareDisabled                   // ERROR 55000: prepared transactions are disabled
	actNoPrepared                        // ERROR 42704: no prepared transaction of that name
	actRejectInBlock                     // ERROR 25001: cannot run inside a transaction block
)

var actionNames = map[txnAction]string{actNone: "none", actBeginImplicit: "begin implicit, run",
	actRun: "run", actBeginExplicit: "begin", actPromote: "promote implicit to block", actCommit: "commit",
	actRollback: "rollback", actFailedCommit: "rollback (tag ROLLBACK)", actSavepoint: "savepoint",
	actRelease: "release", actRollbackTo: "rollback to savepoint", actRollbackImplicit: "rollback implicit",
	actRejectAborted: "error 25P02", actRejectNoBlock: "error 25P01", actPrepareDisabled: "error 55000",
	actNoPrepared: "error 42704", actRejectInBlock: "error 25001"}

func (a txnAction) String() string { return actionNames[a] }

// notice is the warning a transition sends with its command tag.
type notice int

const (
	noNotice         notice = iota
	warnNoTxn               // WARNING 25P01: there is no transaction in progress
	warnInTxnAlready        // WARNING 25001: there is already a transaction in progress
)

// transition is one entry of the table: the action to take, the notice to
// send, the state after success and the state after the action fails.
type transition struct {
	action  txnAction
	notice  notice
	next    txnState
	onError txnState
}

// txnTable is the session's transaction state machine, PostgreSQL's rules
// in one place (xact.c's BeginTransactionBlock, EndTransactionBlock,
// UserAbortTransactionBlock, DefineSavepoint and friends). A missing pair is
// a bug; TestTxnTableCoverage writes the handled and missing pairs per state
// to testdata/txn_transitions.txt.
var txnTable = map[txnState]map[txnEvent]transition{
	stateIdle: {
		evBegin:      {action: actBeginExplicit, next: stateInBlock, onError: stateIdle},
		evCommit:     {action: actNone, notice: warnNoTxn, next: stateIdle, onError: stateIdle},
		evRollback:   {action: actNone, notice: warnNoTxn, next: stateIdle, onError: stateIdle},
		evSavepoint:  {action: actRejectNoBlock, next: stateIdle, onError: stateIdle},
		evRelease:    {action: actRejectNoBlock, next: stateIdle, onError: stateIdle},
		evRollbackTo: {action: actRejectNoBlock, next: stateIdle, onError: stateIdle},
		// Two-phase commit: PostgreSQL with max_prepared_transactions = 0,
		// its default, prepares nothing, so nothing is ever prepared.
		evPrepareTxn:     {action: actNone, notice: warnNoTxn, next: stateIdle, onError: stateIdle},
		evFinishPrepared: {action: actNoPrepared, next: stateIdle, onError: stateIdle},
		evStatement:      {action: actBeginImplicit, next: stateImplicit, onError: stateIdle},
		evStmtError:      {action: actNone, next: stateIdle, onError: stateIdle},
		evEndOfBatch:     {action: actNone, next: stateIdle, onError: stateIdle},
	},
	stateImplicit: {
		// BEGIN after statements of the same query string makes them part
		// of the block, without a warning.
		evBegin:          {action: actPromote, next: stateInBlock, onError: stateIdle},
		evCommit:         {action: actCommit, notice: warnNoTxn, next: stateIdle, onError: stateIdle},
		evRollback:       {action: actRollback, notice: warnNoTxn, next: stateIdle, onError: stateIdle},
		evSavepoint:      {action: actRejectNoBlock, next: stateIdle, onError: stateIdle},
		evRelease:        {action: actRejectNoBlock, next: stateIdle, onError: stateIdle},
		evRollbackTo:     {action: actRejectNoBlock, next: stateIdle, onError: stateIdle},
		evPrepareTxn:     {action: actPrepareDisabled, notice: warnNoTxn, next: stateIdle, onError: stateIdle},
		evFinishPrepared: {action: actRejectInBlock, next: stateIdle, onError: stateIdle},
		evStatement:      {action: actRun, next: stateImplicit, onError: stateIdle},
		evStmtError:      {action: actRollbackImplicit, next: stateIdle, onError: stateIdle},
		evEndOfBatch:     {action: actCommit, next: stateIdle, onError: stateIdle},
	},
	stateInBlock: {
		evBegin:          {action: actNone, notice: warnInTxnAlready, next: stateInBlock, onError: stateFailed},
		evCommit:         {action: actCommit, next: stateIdle, onError: stateIdle},
		evRollback:       {action: actRollback, next: stateIdle, onError: stateIdle},
		evSavepoint:      {action: actSavepoint, next: stateInBlock, onError: stateFailed},
		evRelease:        {action: actRelease, next: stateInBlock, onError: stateFailed},
		evRollbackTo:     {action: actRollbackTo, next: stateInBlock, onError: stateFailed},
		evPrepareTxn:     {action: actPrepareDisabled, next: stateIdle, onError: stateIdle},
		evFinishPrepared: {action: actRejectInBlock, next: stateFailed, onError: stateFailed},
		evStatement:      {action: actRun, next: stateInBlock, onError: stateFailed},
		evStmtError:      {action: actNone, next: stateFailed, onError: stateFailed},
		evEndOfBatch:     {action: actNone, next: stateInBlock, onError: stateInBlock},
	},
	stateFailed: {
		evBegin:          {action: actRejectAborted, next: stateFailed, onError: stateFailed},
		evCommit:         {action: actFailedCommit, next: stateIdle, onError: stateIdle},
		evRollback:       {action: actRollback, next: stateIdle, onError: stateIdle},
		evSavepoint:      {action: actRejectAborted, next: stateFailed, onError: stateFailed},
		evRelease:        {action: actRejectAborted, next: stateFailed, onError: stateFailed},
		evRollbackTo:     {action: actRollbackTo, next: stateInBlock, onError: stateFailed},
		evPrepareTxn:     {action: actFailedCommit, next: stateIdle, onError: stateIdle},
		evFinishPrepared: {action: actRejectAborted, next: stateFailed, onError: stateFailed},
		evStatement:      {action: actRejectAborted, next: stateFailed, onError: stateFailed},
		evStmtError:      {action: actNone, next: stateFailed, onError: stateFailed},
		evEndOfBatch:     {action: actNone, next: stateFailed, onError: stateFailed},
	},
}

// eventOf maps a transaction-control statement to its event.
func eventOf(kind TxnControlKind) txnEvent {
	switch kind {
	case TxnBegin:
		return evBegin
	case TxnCommit:
		return evCommit
	case TxnRollback:
		return evRollback
	case TxnSavepoint:
		return evSavepoint
	case TxnRelease:
		return evRelease
	case TxnRollbackTo:
		return evRollbackTo
	case TxnPrepare:
		return evPrepareTxn
	}
	return evFinishPrepared
}
