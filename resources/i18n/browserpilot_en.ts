<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>AgentRunsPanel</name>
    <message numerus="yes">
        <source>%n agent run(s)</source>
        <translation>
            <numerusform>%n agent run</numerusform>
            <numerusform>%n agent runs</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>BatchDialog</name>
    <message numerus="yes">
        <source>At most %n tab(s) at once (the batch setting)</source>
        <translation>
            <numerusform>At most %n tab at once (the batch setting)</numerusform>
            <numerusform>At most %n tabs at once (the batch setting)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n row(s); columns: {columns}</source>
        <translation>
            <numerusform>%n row; columns: {columns}</numerusform>
            <numerusform>%n rows; columns: {columns}</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>BrowserLoginDialog</name>
    <message numerus="yes">
        <source>{site} — %n cookie(s)</source>
        <translation>
            <numerusform>{site} — %n cookie</numerusform>
            <numerusform>{site} — %n cookies</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n site(s) in {source}: tick the ones to copy.</source>
        <translation>
            <numerusform>%n site in {source}: tick the ones to copy.</numerusform>
            <numerusform>%n sites in {source}: tick the ones to copy.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EditorCanvas</name>
    <message numerus="yes">
        <source>%n inside</source>
        <translation>
            <numerusform>%n inside</numerusform>
            <numerusform>%n inside</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EditorWindow</name>
    <message numerus="yes">
        <source>Saved (%n warning(s)).</source>
        <translation>
            <numerusform>Saved (%n warning).</numerusform>
            <numerusform>Saved (%n warnings).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n matches (page actions need exactly one)</source>
        <translation>
            <numerusform>%n matches (page actions need exactly one)</numerusform>
            <numerusform>%n matches (page actions need exactly one)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>JobRow</name>
    <message numerus="yes">
        <source>, %n not ok</source>
        <translation>
            <numerusform>, %n not ok</numerusform>
            <numerusform>, %n not ok</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n done</source>
        <translation>
            <numerusform>%n done</numerusform>
            <numerusform>%n done</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n failed</source>
        <translation>
            <numerusform>%n failed</numerusform>
            <numerusform>%n failed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n left</source>
        <translation>
            <numerusform>%n left</numerusform>
            <numerusform>%n left</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %n s left</source>
        <translation>
            <numerusform>about %n s left</numerusform>
            <numerusform>about %n s left</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message numerus="yes">
        <source>%n run(s) still running will stop.</source>
        <translation>
            <numerusform>%n run still running will stop.</numerusform>
            <numerusform>%n runs still running will stop.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n recording(s) not saved will be lost.</source>
        <translation>
            <numerusform>%n recording not saved will be lost.</numerusform>
            <numerusform>%n recordings not saved will be lost.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message numerus="yes">
        <source>%n model(s) offered</source>
        <translation>
            <numerusform>%n model offered</numerusform>
            <numerusform>%n models offered</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RecordPanel</name>
    <message numerus="yes">
        <source>{dot} &lt;b&gt;Recording&lt;/b&gt; %n step(s) — act in the page as usual</source>
        <translation>
            <numerusform>{dot} &lt;b&gt;Recording&lt;/b&gt; %n step — act in the page as usual</numerusform>
            <numerusform>{dot} &lt;b&gt;Recording&lt;/b&gt; %n steps — act in the page as usual</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n action(s) could not be recorded (in red): the workflow cannot be saved until each is deleted.</source>
        <translation>
            <numerusform>%n action could not be recorded (in red): the workflow cannot be saved until each is deleted.</numerusform>
            <numerusform>%n actions could not be recorded (in red): the workflow cannot be saved until each is deleted.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RunTablesView</name>
    <message numerus="yes">
        <source>{name} ({kind}, %n row(s))</source>
        <translation>
            <numerusform>{name} ({kind}, %n row)</numerusform>
            <numerusform>{name} ({kind}, %n rows)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{shown} of %n row(s)</source>
        <translation>
            <numerusform>{shown} of %n row</numerusform>
            <numerusform>{shown} of %n rows</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n row(s)</source>
        <translation>
            <numerusform>%n row</numerusform>
            <numerusform>%n rows</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RunsPanel</name>
    <message numerus="yes">
        <source>%n latest run(s)</source>
        <translation>
            <numerusform>%n latest run</numerusform>
            <numerusform>%n latest runs</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TraceView</name>
    <message numerus="yes">
        <source>%n step(s)</source>
        <translation>
            <numerusform>%n step</numerusform>
            <numerusform>%n steps</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message numerus="yes">
        <source>BrowserPilot: %n run(s) need you</source>
        <translation>
            <numerusform>BrowserPilot: %n run need you</numerusform>
            <numerusform>BrowserPilot: %n runs need you</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>BrowserPilot: %n run(s) going</source>
        <translation>
            <numerusform>BrowserPilot: %n run going</numerusform>
            <numerusform>BrowserPilot: %n runs going</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>WorkflowsPanel</name>
    <message numerus="yes">
        <source>… and %n more (see the details).</source>
        <translation>
            <numerusform>… and %n more (see the details).</numerusform>
            <numerusform>… and %n more (see the details).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>It loaded with %n warning(s): parts that look wrong and may fail when a run reaches them.</source>
        <translation>
            <numerusform>It loaded with %n warning: parts that look wrong and may fail when a run reaches them.</numerusform>
            <numerusform>It loaded with %n warnings: parts that look wrong and may fail when a run reaches them.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The recording was converted with %n note(s).</source>
        <translation>
            <numerusform>The recording was converted with %n note.</numerusform>
            <numerusform>The recording was converted with %n notes.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>“{file}” was not imported: it has %n problems.</source>
        <translation>
            <numerusform>“{file}” was not imported: it has %n problems.</numerusform>
            <numerusform>“{file}” was not imported: it has %n problems.</numerusform>
        </translation>
    </message>
</context>
</TS>
