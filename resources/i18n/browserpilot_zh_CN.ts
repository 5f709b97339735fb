<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About BrowserPilot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One shared, persistent, multi-environment browser for people and AI agents.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data folder:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log file:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Data Folder</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AddressBar</name>
    <message>
        <source>Secure connection (HTTPS)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The connection to this site is not encrypted</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AgentPanel</name>
    <message>
        <source>What should the agent do? e.g. Log in with &lt;secret:password&gt; and download last month&apos;s invoice</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start at (optional URL)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Secret</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add secret</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks: locators that must be on the final page, separated by ;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens: {input} in, {cached} cached, {output} out · {cost}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workflow name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save as workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Typed values as inputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The values the agent typed become start inputs of the workflow (with what it typed as their defaults)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Task</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Secrets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model {model} · key: {source}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type a task first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent: {task}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replaying without the model before saving…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step {n}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paused: you took over. Click Done on the page to let the agent go on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resumed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Asking the judge…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workflow {name}:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (retried after a stale ref)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AgentRunTableModel</name>
    <message>
        <source>Started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Task</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Self-report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Judge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cost</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AgentRunsPanel</name>
    <message>
        <source>Re&amp;fresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent says</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The judge says</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your checks</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n agent run(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>{status} · {model} · env {env} · {duration}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved as the workflow “{name}”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not saved as a workflow: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Files: {files}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AgentSettingsDialog</name>
    <message>
        <source>Agent settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty: ANTHROPIC_API_KEY (set)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty: ANTHROPIC_API_KEY (not set)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>empty: ANTHROPIC_BASE_URL or Anthropic</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved in {path} (readable only by you).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BatchDialog</name>
    <message>
        <source>Batch Run “{name}”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a CSV file with one row per run (the header row names the inputs).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>At most %n tab(s) at once (the batch setting)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Rows &amp;file:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Environments:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Tabs at once:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each row is one run; a failed row does not stop the others. With several environments (accounts), the runs are spread over them in turn.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Start Batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rows for the Batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rows (*.csv *.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a CSV file with one row per run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot read the rows: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The file has no rows.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column(s) {columns} are not inputs of this workflow (its inputs: {inputs}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Missing column(s) for required inputs: {names}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n row(s); columns: {columns}</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Run on &amp;workers through the broker:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>redis://host:6379/0 (rediss:// for TLS)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose at least one environment.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The broker is a redis:// or rediss:// URL (the workers&apos; --broker).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ControlOverlay</name>
    <message>
        <source>BrowserPilot is operating this page</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ControlState</name>
    <message>
        <source>BrowserPilot is operating this tab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Handed over to you: click Done when finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>You and BrowserPilot share this tab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your turn</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shared</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DownloadRow</name>
    <message>
        <source>Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show in folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{received} of {total}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DownloadsPanel</name>
    <message>
        <source>No downloads yet.
Files this environment downloads appear here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Duration</name>
    <message>
        <source>{ms} ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{s} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{m} min {s} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{h} h {m} min</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EditorCanvas</name>
    <message>
        <source>pending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ok</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>skipped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drag to connect, or drop on empty canvas to add the next step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drag to connect, or drop on empty canvas to add the next step ({handle})</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n inside</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Double-click to open its body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>see problems</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EditorCommands</name>
    <message>
        <source>Add {kind}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove edge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete {node}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect {source} → {target}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit {node}.{key}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit {key}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add note</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete note</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit note</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EditorController</name>
    <message>
        <source>unknown node type {kind}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a workflow has exactly one start node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add {kind}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the start node cannot be deleted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Arrange</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only a node without edges can be dropped onto an edge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Insert {node}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the clipboard holds no workflow nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paste</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cut</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the start node stays at the top level</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nodes move into a loop of their level or out to the level around it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a loop cannot be moved into its own body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move into loop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move out of loop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Note</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EditorRules</name>
    <message>
        <source>both ends must be nodes of the same level (an edge cannot cross into or out of a loop body)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a node cannot be connected to itself</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;{source}&quot; is already connected to &quot;{target}&quot; there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nothing can lead into the start node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>connecting &quot;{source}&quot; to &quot;{target}&quot; would make a cycle (a run fails when it reaches a node twice)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;{target}&quot; already has an input from &quot;{other}&quot;: a second one is only allowed from another branch of an if-else (otherwise a run reaches it twice)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EditorWindow</name>
    <message>
        <source>Undo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Redo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cut</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paste</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Up a level</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Arrange</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add note</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move into loop…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move out of loop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Editor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{name}{dirty} — BrowserPilot workflow editor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(a loop body: Alt+Up goes back out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not done: {reason}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{reader} reads {node}&apos;s output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Still used: {uses}. Delete anyway?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The clipboard holds no workflow nodes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select the nodes and the loop they go into (one loop).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>These nodes are at the top level already.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The workflow cannot be saved yet:
{problems}</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Saved (%n warning(s)).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Save workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This workflow was deleted from the list; Save puts it back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reloaded: the workflow was changed outside this editor.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changed outside the editor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“{name}” was changed outside this editor. Reload it (your unsaved changes are lost) or keep editing yours?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep Mine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs need the app&apos;s browser.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot run: {problem}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running {run}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run {run} {status}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> at {node}: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Screenshot: {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HAR: {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Showing run {run}: {status}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open an environment window with the page first, then press Pick.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pick</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click the element in the environment window.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No environment window is open.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 match (exactly one: good)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n matches (page actions need exactly one)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Test locator</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the changes to “{name}”?</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Editors</name>
    <message>
        <source>New Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A workflow named {name} exists already</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EnvSettingsDialog</name>
    <message>
        <source>One pattern per line: &lt;b&gt;example.com&lt;/b&gt; (that host and www.), &lt;b&gt;*.example.com&lt;/b&gt; (the domain and every subdomain), &lt;b&gt;https://example.com&lt;/b&gt; (only over https), &lt;b&gt;host:8080&lt;/b&gt; (only that port), &lt;b&gt;*&lt;/b&gt; (everything). With allowed domains, every other host is blocked &amp;mdash; for pages, frames, scripts, images, fetch, WebSockets and downloads alike; blocked domains apply on top. Changes apply at once to open tabs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environment Settings — {name}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Empty: every host is allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>for example: *.doubleclick.net</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Remark:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Allowed domains:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Blocked domains:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ID: {id}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The name is empty.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EnvTableModel</name>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent sites</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Created</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ID</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  (default)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EnvWindow</name>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tab group {name}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tab group</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New tab (Ctrl+T)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New tab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search or enter an address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Back</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Back (Alt+Left)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forward (Alt+Right)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reload (F5)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop loading (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Home</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Home page (Alt+Home)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New Tab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close Tab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next Tab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous Tab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Location</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close Window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the environments (Ctrl+Shift+E)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Navigation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Menu</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add to new group…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add to group</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove from group</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close tab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New tab group</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name of the group:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Group: {name}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record what you do in this tab as a workflow (Ctrl+Shift+R)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Downloads (Ctrl+Shift+Y)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EnvironmentsPanel</name>
    <message>
        <source>&amp;New…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re&amp;name…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit &amp;Remark…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only the default environment so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Create an environment for each account or role: each keeps its own logins, cookies and storage, side by side.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Create an Environment…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The default environment cannot be deleted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New Environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename Environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit Remark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remark for {name}:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environment Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete Environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the environment “{name}”?

Its window is closed and its cookies, logins and stored site data are removed. This cannot be undone.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>HandoffBanner</name>
    <message>
        <source>Handed over to you</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give the page back to BrowserPilot</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>IdleExitSection</name>
    <message>
        <source>When an agent starts the app</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Never</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An app that &lt;code&gt;browserpilot mcp&lt;/code&gt; started without windows quits this long after its last agent client has gone, never while a run, a batch, a recording or a window someone uses is open. An app you started yourself never quits by itself.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quit after idle:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not saved: {reason}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>JobRow</name>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running “{name}” in {envs}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running “{name}”…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{done}/{total}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch of “{name}” in {envs}: {done} of {total} rows done, {ok} ok</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch of “{name}”: {done} of {total} rows done, {ok} ok</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>, %n not ok</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n done</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n failed</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n left</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>about {time} left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>estimating the time left…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelling: {job}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LocatorEditor</name>
    <message>
        <source>Tried in this order when the selector and XPath do not find the element</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>value of a new alternative</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pick</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click an element in an environment window to fill this locator</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Test</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Count the matches on the front tab and outline them for a moment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Selector:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>XPath:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Alternatives:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click the element in an environment window…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Picked.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Testing…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>BrowserPilot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workflows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data folder: {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New Environment…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New &amp;Workflow…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Import Workflows…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings and Data Folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;Data Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Rename…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit Re&amp;mark…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Record a Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask an &amp;Agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run as &amp;Batch…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xport…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Delete Workflow…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Welcome and MCP Setup</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About BrowserPilot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Main</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name of the new workflow:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recording needs an environment window.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The agent needs an environment window.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>McpSection</name>
    <message>
        <source>MCP server for AI agents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serve MCP to agents on this computer (127.0.0.1 only, with a token)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy Token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token copied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regenerate Token…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy Configuration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Configuration copied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Client:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running at {url}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting at {url}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not running: {problem}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regenerate MCP Token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make a new token? Clients configured with the current token stop working until you paste the new configuration.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New token made: update your clients&apos; configuration.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Minimap</name>
    <message>
        <source>Overview: click or drag to move the view</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>NewEnvironmentDialog</name>
    <message>
        <source>New Environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>for example: Work account</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optional note: which account, what it is for…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Remark:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each environment keeps its own logins, cookies and storage.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>NodeForm</name>
    <message>
        <source>The type {kind} is not known here: its fields are kept as they are.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kept as they are: {keys}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(default: {value})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON (default: {value})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>default: {value}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>NodeMenu</name>
    <message>
        <source>Flow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Page</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wait &amp; extract</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data &amp; debug</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>People</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a node: type to search…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RecordList</name>
    <message>
        <source>condition</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>case</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>variable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>item</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add {noun}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove {noun}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>comma-separated</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RecordPanel</name>
    <message>
        <source>Recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the selected step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit value…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change the typed text, option, keys, address or message</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make input…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The typed value becomes a start input, asked for at each run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Locator</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use another recorded way to find the element</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Insert</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Handoff here…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Captcha here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wait for this (pick an element)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Capture text (pick an element)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check (pick an element)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop recording and save the workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This tab is not being recorded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>node: {type}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>alternatives: {list}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{dot} &lt;b&gt;Recording paused&lt;/b&gt; — {reason}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{dot} &lt;b&gt;Recording&lt;/b&gt; — click the element for “{what}” in the page</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>{dot} &lt;b&gt;Recording&lt;/b&gt; %n step(s) — act in the page as usual</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Edit the step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{step}

New value:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name of the start input (asked for at each run; the recorded value is its default):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Handoff here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Message for the person (e.g. type the one-time code, then press Done):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Capture text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name of the output:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recorded workflow</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunDetail</name>
    <message>
        <source>Select a run to see its detail.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workflow:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environment:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Started:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ended:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duration:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped at:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HAR:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Screenshot:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click to open the screenshot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show HAR in Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show in &amp;Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OK</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Locator</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{workflow} — {status}  ({id})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{batch}, row {n}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, ran on worker {worker}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{duration} so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  (a person took over during the run)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, tab {tab}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Files ({n})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(the screenshot file is missing)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunInputsDialog</name>
    <message>
        <source>Input {name} ({kind})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hidden</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Secret: masked here, and stored as &lt;secret:{name}&gt; in the run record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Leave unchecked to run without this optional input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run “{name}”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{label} *:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{label}:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Environment:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This workflow asks for no inputs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Required: {names}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no environment to run in.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunOverlay</name>
    <message>
        <source>not run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run {run}: {state}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunStatus</name>
    <message>
        <source>ok</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>taken over</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not run</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunTableModel</name>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  (row {n})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>batch {batch}, row {n}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ran on worker {worker}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RunsPanel</name>
    <message>
        <source>(large value in {file}, {bytes} bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Cancel Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot list runs: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n latest run(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Show on &amp;Graph</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel the selected run; its record is written as cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only a running run can be cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelling {id}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel Run</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>StopDialog</name>
    <message>
        <source>Save the recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replay now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workflow name:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ValidationList</name>
    <message>
        <source>No problems.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WelcomeDialog</name>
    <message>
        <source>Welcome to BrowserPilot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One shared browser for you and your AI agents: environments keep their own logins, workflows replay what you or an agent did, and every run is recorded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your data folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environments, workflows, runs and settings are kept here. Start with --data-dir or BROWSERPILOT_HOME to use another folder.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect an AI agent (MCP)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Paste one of these into your agent&apos;s configuration. The HTTP ones reach this app while it runs; the stdio one starts it when needed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read the &lt;a href=&quot;{url}&quot;&gt;README&lt;/a&gt; for the environments, workflows, the command line and every MCP tool.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The README (in the source distribution) describes the environments, workflows, the command line and every MCP tool.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Get Started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copied the configuration for {client}.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WorkflowTableModel</name>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Description</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>never run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{id}: {status}, started {time}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WorkflowsPanel</name>
    <message>
        <source>&amp;Import…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xport…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Batch…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Re&amp;fresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No workflows yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import a workflow file, record one by doing the task once in an environment window, or ask an agent to do it and save what it did as a workflow.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask an Agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drop workflow files (.json, or Chrome DevTools Recorder recordings) here to import them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot list workflows: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Import Workflows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workflows and Chrome Recorder recordings (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Imported “{workflow}” from {file} (it replaced the saved workflow of that name).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Imported “{workflow}” from {file}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>… and %n more (see the details).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Import Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>It loaded with %n warning(s): parts that look wrong and may fail when a run reaches them.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The recording was converted with %n note(s).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>“{file}” was not imported: it has %n problems.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>“{file}” was not imported: {problem}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing was saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export “{name}”</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workflow (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported to {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete the workflow “{name}”?

Its past runs stay in the Runs panel. Export it first if you may want it back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deleted “{name}”.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“{name}” cannot run: it is not valid.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>workers at {broker}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run of “{name}” was cancelled before it started.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“{name}” could not run: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“{name}” finished: ok, in {duration}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outputs: {keys}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“{name}” {status} at node “{node}” after {duration}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“{name}” {status} after {duration}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last run: {result}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run Finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run Not Finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The batch of “{name}” was cancelled: {done} of {total} rows ran, {ok} ok.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch Cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The batch of “{name}” could not run: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch of “{name}” done: {ok} of {total} rows ok, {failed} not ok.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch of “{name}” done: {ok} of {total} rows ok.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Row {n}: {status}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Batch Finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show in Runs</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>_Card</name>
    <message>
        <source>Take over</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop BrowserPilot here and use this page yourself</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>self.detail</name>
    <message>
        <source>{duration} so far</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
