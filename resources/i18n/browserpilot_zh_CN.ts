<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About BrowserPilot</source>
        <translation>关于 BrowserPilot</translation>
    </message>
    <message>
        <source>One shared, persistent, multi-environment browser for people and AI agents.</source>
        <translation>给人和 AI Agent 共用的浏览器：持久保存，多套环境并存。</translation>
    </message>
    <message>
        <source>Data folder:</source>
        <translation>数据文件夹：</translation>
    </message>
    <message>
        <source>Log file:</source>
        <translation>日志文件：</translation>
    </message>
    <message>
        <source>Open Data Folder</source>
        <translation>打开数据文件夹</translation>
    </message>
</context>
<context>
    <name>AddressBar</name>
    <message>
        <source>Secure connection (HTTPS)</source>
        <translation>安全连接（HTTPS）</translation>
    </message>
    <message>
        <source>The connection to this site is not encrypted</source>
        <translation>与这个网站的连接没有加密</translation>
    </message>
</context>
<context>
    <name>AgentModel</name>
    <message>
        <source>OpenAI-compatible (Ollama, llama.cpp, vLLM, LM Studio, OpenRouter…)</source>
        <translation>OpenAI 兼容（Ollama、llama.cpp、vLLM、LM Studio、OpenRouter…）</translation>
    </message>
    <message>
        <source>Anthropic</source>
        <translation>Anthropic</translation>
    </message>
</context>
<context>
    <name>AgentPanel</name>
    <message>
        <source>What should the agent do? e.g. Log in with &lt;secret:password&gt; and download last month&apos;s invoice</source>
        <translation>要 Agent 做什么？例如：用 &lt;secret:password&gt; 登录，下载上个月的发票</translation>
    </message>
    <message>
        <source>Start at (optional URL)</source>
        <translation>从这里开始（网址，可选）</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Secret</source>
        <translation>机密</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Domains</source>
        <translation>域名</translation>
    </message>
    <message>
        <source>Where the secret may be typed: shop.example.com, *.example.org, https://…, host:port, separated by commas; * for anywhere. Empty: the site of the start page.</source>
        <translation>机密只能输入到这些网站：shop.example.com、*.example.org、https://…、主机:端口，用逗号分隔；* 表示任何网站。留空：起始页面所在的网站。</translation>
    </message>
    <message>
        <source>Add secret</source>
        <translation>添加机密</translation>
    </message>
    <message>
        <source>Remember</source>
        <translation>记住</translation>
    </message>
    <message>
        <source>Keep these secrets, with their domains, in agent.json (readable only by you) for the next tasks</source>
        <translation>把这些机密连同域名保存在 agent.json 里（只有你能读取），供以后的任务使用</translation>
    </message>
    <message>
        <source>Checks: locators that must be on the final page, separated by ;</source>
        <translation>检查：最后的页面上必须有的定位器，用 ; 分隔</translation>
    </message>
    <message>
        <source>Tokens: {input} in, {cached} cached, {output} out · {cost}</source>
        <translation>Token：输入 {input}，缓存 {cached}，输出 {output} · {cost}</translation>
    </message>
    <message>
        <source>Workflow name</source>
        <translation>工作流名称</translation>
    </message>
    <message>
        <source>Save as workflow</source>
        <translation>保存为工作流</translation>
    </message>
    <message>
        <source>Typed values as inputs</source>
        <translation>输入的值作为参数</translation>
    </message>
    <message>
        <source>The values the agent typed become start inputs of the workflow (with what it typed as their defaults)</source>
        <translation>Agent 输入的值变成工作流的开始参数（它输入的内容作为默认值）</translation>
    </message>
    <message>
        <source>Replay now</source>
        <translation>马上回放</translation>
    </message>
    <message>
        <source>Run the saved workflow once, with no model. It does again what the task did (an order, a message, a payment): saving never replays.</source>
        <translation>不用模型，把保存的工作流运行一次。任务做过的事（下单、发消息、付款）会再做一遍：保存时从不回放。</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Secrets</source>
        <translation>机密</translation>
    </message>
    <message>
        <source>Checks</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>needed: give a start URL, or sites here</source>
        <translation>必填：请给出起始网址，或在这里填写网站</translation>
    </message>
    <message>
        <source>{site} (the start page&apos;s site)</source>
        <translation>{site}（起始页面所在的网站）</translation>
    </message>
    <message>
        <source>{provider} · key: {source}</source>
        <translation>{provider} · 密钥：{source}</translation>
    </message>
    <message>
        <source>Type a task first.</source>
        <translation>先输入任务。</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Agent: {task}</source>
        <translation>Agent：{task}</translation>
    </message>
    <message>
        <source>Replaying the saved workflow, with no model…</source>
        <translation>正在不用模型回放保存的工作流…</translation>
    </message>
    <message>
        <source>Step {n}</source>
        <translation>第 {n} 步</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Paused: you took over. Click Done on the page to let the agent go on.</source>
        <translation>已暂停：你接管了。点页面上的“完成”让 Agent 继续。</translation>
    </message>
    <message>
        <source>Resumed.</source>
        <translation>已继续。</translation>
    </message>
    <message>
        <source>Without: {note}</source>
        <translation>不可用：{note}</translation>
    </message>
    <message>
        <source>Asking the judge…</source>
        <translation>正在询问评审…</translation>
    </message>
    <message>
        <source>Workflow {name}:</source>
        <translation>工作流 {name}：</translation>
    </message>
    <message>
        <source>saved</source>
        <translation>已保存</translation>
    </message>
    <message>
        <source>It was not replayed: Replay now runs it once, doing again what the task did.</source>
        <translation>没有回放：“马上回放”会运行一次，把任务做过的事再做一遍。</translation>
    </message>
    <message>
        <source>Replay:</source>
        <translation>回放：</translation>
    </message>
    <message>
        <source>passed</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>not run (the page changed)</source>
        <translation>没有执行（页面变了）</translation>
    </message>
    <message>
        <source>refused, nothing sent: {error}</source>
        <translation>已拒绝，什么都没有发送：{error}</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>成功</translation>
    </message>
    <message>
        <source> (retried after a stale ref)</source>
        <translation>（引用失效后重试过）</translation>
    </message>
    <message>
        <source>failed: {error}</source>
        <translation>失败：{error}</translation>
    </message>
    <message>
        <source>success</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failure</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Ended:</source>
        <translation>结束原因：</translation>
    </message>
    <message>
        <source>Agent says</source>
        <translation>Agent 的说法</translation>
    </message>
    <message>
        <source>Judge</source>
        <translation>评审</translation>
    </message>
    <message>
        <source>Status:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>Secrets refused</source>
        <translation>被拒绝的机密使用</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>Agent</translation>
    </message>
</context>
<context>
    <name>AgentRunTableModel</name>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Self-report</source>
        <translation>自述</translation>
    </message>
    <message>
        <source>Judge</source>
        <translation>评审</translation>
    </message>
    <message>
        <source>Checks</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Token</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <source>success</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failure</source>
        <translation>失败</translation>
    </message>
</context>
<context>
    <name>AgentRunsPanel</name>
    <message>
        <source>success</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failure</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>no report (no done call)</source>
        <translation>没有自述（没有调用 done）</translation>
    </message>
    <message>
        <source>not asked</source>
        <translation>没有询问</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Step {n}</source>
        <translation>第 {n} 步</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>refused, nothing sent: {error}</source>
        <translation>已拒绝，什么都没有发送：{error}</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failed: {error}</source>
        <translation>失败：{error}</translation>
    </message>
    <message>
        <source>No steps.</source>
        <translation>没有步骤。</translation>
    </message>
    <message>
        <source>The agent says</source>
        <translation>Agent 的说法</translation>
    </message>
    <message>
        <source>The judge says</source>
        <translation>评审的结论</translation>
    </message>
    <message>
        <source>Your checks</source>
        <translation>你的检查</translation>
    </message>
    <message>
        <source>No agent runs yet</source>
        <translation>还没有 Agent 运行</translation>
    </message>
    <message>
        <source>Give the built-in agent a task in an environment window&apos;s Agent panel (View → Agent), or run `browserpilot agent &quot;TASK&quot;`. Each run is kept here with what the agent said, the judge&apos;s verdict and your checks.</source>
        <translation>在环境窗口的 Agent 面板（查看 → Agent）里给内置 Agent 一个任务，或运行 `browserpilot agent &quot;TASK&quot;`。每次运行都记在这里：Agent 的说法、评审的结论和你的检查。</translation>
    </message>
    <message>
        <source>Ask an Agent</source>
        <translation>交给 Agent</translation>
    </message>
    <message numerus="yes">
        <source>%n agent run(s)</source>
        <translation>
            <numerusform>%n 次 Agent 运行</numerusform>
        </translation>
    </message>
    <message>
        <source>{status} · {model} · env {env} · {duration}</source>
        <translation>{status} · {model} · 环境 {env} · {duration}</translation>
    </message>
    <message>
        <source>Error: {error}</source>
        <translation>错误：{error}</translation>
    </message>
    <message>
        <source>Uses of secrets refused: {count} ({uses})</source>
        <translation>被拒绝的机密使用：{count}（{uses}）</translation>
    </message>
    <message>
        <source>Saved as the workflow “{name}”</source>
        <translation>已保存为工作流“{name}”</translation>
    </message>
    <message>
        <source>Not saved as a workflow: {error}</source>
        <translation>没有保存为工作流：{error}</translation>
    </message>
    <message>
        <source>Replayed once on request: passed</source>
        <translation>按要求回放了一次：通过</translation>
    </message>
    <message>
        <source>Replayed once on request: failed: {error}</source>
        <translation>按要求回放了一次：失败：{error}</translation>
    </message>
    <message>
        <source>Files: {files}</source>
        <translation>文件：{files}</translation>
    </message>
</context>
<context>
    <name>AgentSettingsDialog</name>
    <message>
        <source>Agent settings</source>
        <translation>Agent 设置</translation>
    </message>
    <message>
        <source>empty: ANTHROPIC_BASE_URL or Anthropic</source>
        <translation>留空：用 ANTHROPIC_BASE_URL 或 Anthropic</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>基础地址</translation>
    </message>
    <message>
        <source>The model reads images (screenshots are sent to it)</source>
        <translation>模型能读图片（截图会发给它）</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Step budget</source>
        <translation>步数上限</translation>
    </message>
    <message>
        <source>Saved in {path} (readable only by you).</source>
        <translation>已保存在 {path}（只有你能读取）。</translation>
    </message>
    <message>
        <source>empty: {variable}_API_KEY ({state})</source>
        <translation>留空：{variable}_API_KEY（{state}）</translation>
    </message>
    <message>
        <source>set</source>
        <translation>已设置</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>empty: OPENAI_BASE_URL or OpenAI&apos;s, e.g. http://127.0.0.1:11434/v1</source>
        <translation>留空：OPENAI_BASE_URL 或 OpenAI 的地址，例如 http://127.0.0.1:11434/v1</translation>
    </message>
    <message>
        <source>Any endpoint that speaks OpenAI&apos;s Chat Completions with tool calling: Ollama (http://127.0.0.1:11434/v1), llama.cpp&apos;s server, vLLM, LM Studio, OpenRouter. A local server needs no key. Prompt caching is Anthropic&apos;s only.</source>
        <translation>任何支持工具调用、兼容 OpenAI Chat Completions 的服务：Ollama（http://127.0.0.1:11434/v1）、llama.cpp 服务器、vLLM、LM Studio、OpenRouter。本机服务不需要密钥。提示缓存只有 Anthropic 提供。</translation>
    </message>
    <message>
        <source>Not saved: {reason}</source>
        <translation>未保存：{reason}</translation>
    </message>
</context>
<context>
    <name>BatchDialog</name>
    <message>
        <source>Batch Run “{name}”</source>
        <translation>批量运行“{name}”</translation>
    </message>
    <message>
        <source>Choose a CSV file with one row per run (the header row names the inputs).</source>
        <translation>选择一个 CSV 文件，每行运行一次（表头写参数名）。</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>浏览(&amp;B)…</translation>
    </message>
    <message numerus="yes">
        <source>At most %n tab(s) at once (the batch setting)</source>
        <translation>
            <numerusform>最多同时 %n 个标签页（批量设置）</numerusform>
        </translation>
    </message>
    <message>
        <source>Rows &amp;file:</source>
        <translation>数据文件(&amp;F)：</translation>
    </message>
    <message>
        <source>&amp;Environments:</source>
        <translation>环境(&amp;E)：</translation>
    </message>
    <message>
        <source>&amp;Tabs at once:</source>
        <translation>并发标签页(&amp;T)：</translation>
    </message>
    <message>
        <source>Each row is one run; a failed row does not stop the others. With several environments (accounts), the runs are spread over them in turn.</source>
        <translation>每行运行一次；一行失败不影响其他行。选了多套环境（账号）时，运行依次分给它们。</translation>
    </message>
    <message>
        <source>&amp;Start Batch</source>
        <translation>开始批量运行(&amp;S)</translation>
    </message>
    <message>
        <source>Rows for the Batch</source>
        <translation>批量运行的数据</translation>
    </message>
    <message>
        <source>Rows (*.csv *.json);;All files (*)</source>
        <translation>数据 (*.csv *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Choose a CSV file with one row per run.</source>
        <translation>选择一个 CSV 文件，每行运行一次。</translation>
    </message>
    <message>
        <source>Cannot read the rows: {error}</source>
        <translation>读不了数据：{error}</translation>
    </message>
    <message>
        <source>The file has no rows.</source>
        <translation>这个文件里没有数据行。</translation>
    </message>
    <message>
        <source>Column(s) {columns} are not inputs of this workflow (its inputs: {inputs}).</source>
        <translation>列 {columns} 不是这个工作流的参数（它的参数：{inputs}）。</translation>
    </message>
    <message>
        <source>Missing column(s) for required inputs: {names}.</source>
        <translation>缺少必填参数的列：{names}。</translation>
    </message>
    <message numerus="yes">
        <source>%n row(s); columns: {columns}</source>
        <translation>
            <numerusform>%n 行；列：{columns}</numerusform>
        </translation>
    </message>
    <message>
        <source>Run on &amp;workers through the broker:</source>
        <translation>通过 broker 在工作机上运行(&amp;W)：</translation>
    </message>
    <message>
        <source>The Redis broker of the workers, e.g. redis://host:6379/0 (rediss:// for TLS)</source>
        <translation>工作机的 Redis broker，例如 redis://host:6379/0（TLS 用 rediss://）</translation>
    </message>
    <message>
        <source>Choose at least one environment.</source>
        <translation>至少选择一套环境。</translation>
    </message>
    <message>
        <source>The broker is a redis:// or rediss:// URL (the workers&apos; --broker).</source>
        <translation>broker 是 redis:// 或 rediss:// 地址（即工作机的 --broker）。</translation>
    </message>
</context>
<context>
    <name>BrowserLoginDialog</name>
    <message>
        <source>Import Login from Browser</source>
        <translation>从浏览器导入登录</translation>
    </message>
    <message>
        <source>the most recently used profile</source>
        <translation>最近使用的配置文件</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>文件夹…</translation>
    </message>
    <message>
        <source>Find Sites</source>
        <translation>查找网站</translation>
    </message>
    <message>
        <source>A new environment</source>
        <translation>新环境</translation>
    </message>
    <message>
        <source>Name of the new environment</source>
        <translation>新环境的名称</translation>
    </message>
    <message>
        <source>Browser</source>
        <translation>浏览器</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <source>Sites</source>
        <translation>网站</translation>
    </message>
    <message>
        <source>Into</source>
        <translation>导入到</translation>
    </message>
    <message>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Copies the logins (cookies) of the sites you tick from a browser on this computer. Nothing is copied until you choose the sites.</source>
        <translation>从这台电脑上的浏览器复制你勾选的网站的登录（Cookie）。选定网站之前不会复制任何东西。</translation>
    </message>
    <message>
        <source>No profile of {browser} was found here: give its profile folder.</source>
        <translation>这里没有找到 {browser} 的配置文件：请指定它的配置文件夹。</translation>
    </message>
    <message>
        <source>The browser&apos;s profile folder</source>
        <translation>浏览器的配置文件夹</translation>
    </message>
    <message>
        <source>Reading the profile&apos;s cookies…</source>
        <translation>正在读取配置文件的 Cookie…</translation>
    </message>
    <message>
        <source>Nothing was found.</source>
        <translation>什么也没找到。</translation>
    </message>
    <message numerus="yes">
        <source>{site} — %n cookie(s)</source>
        <translation>
            <numerusform>{site} — %n 个 Cookie</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n site(s) in {source}: tick the ones to copy.</source>
        <translation>
            <numerusform>{source} 中有 %n 个网站：勾选要复制的网站。</numerusform>
        </translation>
    </message>
    <message>
        <source>Copying…</source>
        <translation>正在复制…</translation>
    </message>
    <message>
        <source>Not imported: {error}</source>
        <translation>未导入：{error}</translation>
    </message>
    <message>
        <source>Copied {cookies} of {total} cookies into {env}: {sites}.</source>
        <translation>已把 {total} 个 Cookie 中的 {cookies} 个复制到 {env}：{sites}。</translation>
    </message>
    <message>
        <source>{n} could not be set.</source>
        <translation>{n} 个无法设置。</translation>
    </message>
    <message>
        <source>{n} cookies of the profile could not be decrypted.</source>
        <translation>配置文件中有 {n} 个 Cookie 无法解密。</translation>
    </message>
</context>
<context>
    <name>BrowserPilotApp</name>
    <message>
        <source>Not saved yet: {problem}</source>
        <translation>还没有保存：{problem}</translation>
    </message>
</context>
<context>
    <name>ControlOverlay</name>
    <message>
        <source>BrowserPilot is operating this page</source>
        <translation>BrowserPilot 正在操作这个页面</translation>
    </message>
</context>
<context>
    <name>ControlState</name>
    <message>
        <source>BrowserPilot is operating this tab</source>
        <translation>BrowserPilot 正在操作这个标签页</translation>
    </message>
    <message>
        <source>Handed over to you: click Done when finished</source>
        <translation>已交接给你：做完后点“完成”</translation>
    </message>
    <message>
        <source>You and BrowserPilot share this tab</source>
        <translation>你和 BrowserPilot 共用这个标签页</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>Agent</translation>
    </message>
    <message>
        <source>Your turn</source>
        <translation>轮到你</translation>
    </message>
    <message>
        <source>Shared</source>
        <translation>共用</translation>
    </message>
</context>
<context>
    <name>DesktopSection</name>
    <message>
        <source>Tray, notifications and start at login</source>
        <translation>托盘、通知和登录时启动</translation>
    </message>
    <message>
        <source>When schedules are on, closing the window leaves BrowserPilot in the tray</source>
        <translation>有启用的定时任务时，关闭窗口后 BrowserPilot 留在托盘中</translation>
    </message>
    <message>
        <source>This desktop has no system tray: BrowserPilot stays open, minimised, instead.</source>
        <translation>这个桌面没有系统托盘：BrowserPilot 会改为保持打开并最小化。</translation>
    </message>
    <message>
        <source>Start BrowserPilot at login (in the tray)</source>
        <translation>登录时启动 BrowserPilot（在托盘中）</translation>
    </message>
    <message>
        <source>Notify me when:</source>
        <translation>以下情况通知我：</translation>
    </message>
    <message>
        <source>A run needs a person (a handoff or a captcha)</source>
        <translation>运行需要人来处理（交接或验证码）</translation>
    </message>
    <message>
        <source>A scheduled run failed</source>
        <translation>定时运行失败</translation>
    </message>
    <message>
        <source>A scheduled batch finished</source>
        <translation>定时批量运行完成</translation>
    </message>
    <message>
        <source>A schedule skipped or missed a time</source>
        <translation>定时任务跳过或错过了一次</translation>
    </message>
    <message>
        <source>Not saved: {reason}</source>
        <translation>未保存：{reason}</translation>
    </message>
</context>
<context>
    <name>DownloadRow</name>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Show in folder</source>
        <translation>打开所在文件夹</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>下载中</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Merging audio and video</source>
        <translation>正在合并音频和视频</translation>
    </message>
    <message>
        <source>Fragment {index} of {count}</source>
        <translation>第 {index}/{count} 个分片</translation>
    </message>
    <message>
        <source>Stream {index} of {count}</source>
        <translation>第 {index}/{count} 路流</translation>
    </message>
    <message>
        <source>{received} of {total}</source>
        <translation>{received} / {total}</translation>
    </message>
</context>
<context>
    <name>DownloadsPanel</name>
    <message>
        <source>No downloads yet.
Files this environment downloads appear here.</source>
        <translation>还没有下载。
这套环境下载的文件都会出现在这里。</translation>
    </message>
    <message>
        <source>Clear finished</source>
        <translation>清除已完成</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
</context>
<context>
    <name>Duration</name>
    <message>
        <source>{ms} ms</source>
        <translation>{ms} 毫秒</translation>
    </message>
    <message>
        <source>{s} s</source>
        <translation>{s} 秒</translation>
    </message>
    <message>
        <source>{m} min {s} s</source>
        <translation>{m} 分 {s} 秒</translation>
    </message>
    <message>
        <source>{h} h {m} min</source>
        <translation>{h} 小时 {m} 分</translation>
    </message>
</context>
<context>
    <name>EditorCanvas</name>
    <message>
        <source>pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Drag to connect, or drop on empty canvas to add the next step</source>
        <translation>拖到下一个节点上连线，或拖到画布空白处添加下一步</translation>
    </message>
    <message>
        <source>Drag to connect, or drop on empty canvas to add the next step ({handle})</source>
        <translation>拖到下一个节点上连线，或拖到画布空白处添加下一步（{handle}）</translation>
    </message>
    <message numerus="yes">
        <source>%n inside</source>
        <translation>
            <numerusform>内含 %n 个节点</numerusform>
        </translation>
    </message>
    <message>
        <source>Double-click to open its body</source>
        <translation>双击进入</translation>
    </message>
    <message>
        <source>see problems</source>
        <translation>查看问题</translation>
    </message>
</context>
<context>
    <name>EditorCommands</name>
    <message>
        <source>Add {kind}</source>
        <translation>添加{kind}</translation>
    </message>
    <message>
        <source>Remove edge</source>
        <translation>删除连线</translation>
    </message>
    <message>
        <source>Delete {node}</source>
        <translation>删除 {node}</translation>
    </message>
    <message>
        <source>Connect {source} → {target}</source>
        <translation>连线 {source} → {target}</translation>
    </message>
    <message>
        <source>Edit {field} of “{node}”</source>
        <translation>修改“{node}”的{field}</translation>
    </message>
    <message>
        <source>Edit {field}</source>
        <translation>修改{field}</translation>
    </message>
    <message>
        <source>Move</source>
        <translation>移动</translation>
    </message>
    <message>
        <source>Add note</source>
        <translation>添加注释</translation>
    </message>
    <message>
        <source>Delete note</source>
        <translation>删除注释</translation>
    </message>
    <message>
        <source>Edit note</source>
        <translation>修改注释</translation>
    </message>
</context>
<context>
    <name>EditorController</name>
    <message>
        <source>unknown node type {kind}</source>
        <translation>未知的节点类型 {kind}</translation>
    </message>
    <message>
        <source>a workflow has exactly one start node</source>
        <translation>一个工作流只有一个开始节点</translation>
    </message>
    <message>
        <source>Add {kind}</source>
        <translation>添加{kind}</translation>
    </message>
    <message>
        <source>the start node cannot be deleted</source>
        <translation>开始节点不能删除</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Move</source>
        <translation>移动</translation>
    </message>
    <message>
        <source>Arrange</source>
        <translation>整理布局</translation>
    </message>
    <message>
        <source>only a node without edges can be dropped onto an edge</source>
        <translation>只有没有连线的节点才能放到连线上</translation>
    </message>
    <message>
        <source>Insert {node}</source>
        <translation>插入 {node}</translation>
    </message>
    <message>
        <source>the clipboard holds no workflow nodes</source>
        <translation>剪贴板里没有工作流节点</translation>
    </message>
    <message>
        <source>Paste</source>
        <translation>粘贴</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>复制一份</translation>
    </message>
    <message>
        <source>Cut</source>
        <translation>剪切</translation>
    </message>
    <message>
        <source>the start node stays at the top level</source>
        <translation>开始节点只能在最外层</translation>
    </message>
    <message>
        <source>nodes move into a loop of their level or out to the level around it</source>
        <translation>节点只能移进同一层的循环，或移到外面一层</translation>
    </message>
    <message>
        <source>a loop cannot be moved into its own body</source>
        <translation>循环不能移进它自己的循环体</translation>
    </message>
    <message>
        <source>Move into loop</source>
        <translation>移进循环</translation>
    </message>
    <message>
        <source>Move out of loop</source>
        <translation>移出循环</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>注释</translation>
    </message>
</context>
<context>
    <name>EditorRules</name>
    <message>
        <source>both ends must be nodes of the same level (an edge cannot cross into or out of a loop body)</source>
        <translation>连线两端必须在同一层（连线不能穿进或穿出循环体）</translation>
    </message>
    <message>
        <source>a node cannot be connected to itself</source>
        <translation>不能连到自己</translation>
    </message>
    <message>
        <source>&quot;{source}&quot; is already connected to &quot;{target}&quot; there</source>
        <translation>“{source}”在这里已经连到“{target}”了</translation>
    </message>
    <message>
        <source>nothing can lead into the start node</source>
        <translation>不能有线连进开始节点</translation>
    </message>
    <message>
        <source>connecting &quot;{source}&quot; to &quot;{target}&quot; would make a cycle (a run fails when it reaches a node twice)</source>
        <translation>把“{source}”连到“{target}”会成环（运行到同一节点两次就会失败）</translation>
    </message>
    <message>
        <source>&quot;{target}&quot; already has an input from &quot;{other}&quot;: a second one is only allowed from another branch of an if-else (otherwise a run reaches it twice)</source>
        <translation>“{target}”已经有从“{other}”进入的线：只有来自同一个判断的另一个分支时才能再连一条（否则运行会到达它两次）</translation>
    </message>
</context>
<context>
    <name>EditorWindow</name>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>重做</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Cancel run</source>
        <translation>取消运行</translation>
    </message>
    <message>
        <source>Schedule…</source>
        <translation>定时…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Select all</source>
        <translation>全选</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Cut</source>
        <translation>剪切</translation>
    </message>
    <message>
        <source>Paste</source>
        <translation>粘贴</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>复制一份</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适应窗口</translation>
    </message>
    <message>
        <source>Up a level</source>
        <translation>返回上一层</translation>
    </message>
    <message>
        <source>Arrange</source>
        <translation>整理布局</translation>
    </message>
    <message>
        <source>Add note</source>
        <translation>添加注释</translation>
    </message>
    <message>
        <source>Move into loop…</source>
        <translation>移进循环…</translation>
    </message>
    <message>
        <source>Move out of loop</source>
        <translation>移出循环</translation>
    </message>
    <message>
        <source>Clear run</source>
        <translation>清除运行结果</translation>
    </message>
    <message>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <source>Editor</source>
        <translation>编辑器</translation>
    </message>
    <message>
        <source>{name}{dirty} — BrowserPilot workflow editor</source>
        <translation>{name}{dirty} — BrowserPilot 工作流编辑器</translation>
    </message>
    <message>
        <source>Workflow</source>
        <translation>工作流</translation>
    </message>
    <message>
        <source>(a loop body: Alt+Up goes back out)</source>
        <translation>（循环体内：Alt+Up 返回外层）</translation>
    </message>
    <message>
        <source>Not done: {reason}</source>
        <translation>没有完成：{reason}</translation>
    </message>
    <message>
        <source>{reader} reads {node}&apos;s output</source>
        <translation>{reader} 读取 {node} 的输出</translation>
    </message>
    <message>
        <source>Still used: {uses}. Delete anyway?</source>
        <translation>还在被使用：{uses}。仍然删除？</translation>
    </message>
    <message>
        <source>The clipboard holds no workflow nodes.</source>
        <translation>剪贴板里没有工作流节点。</translation>
    </message>
    <message>
        <source>Select the nodes and the loop they go into (one loop).</source>
        <translation>选中要移动的节点和目标循环（一个循环）。</translation>
    </message>
    <message>
        <source>These nodes are at the top level already.</source>
        <translation>这些节点已经在最外层了。</translation>
    </message>
    <message>
        <source>Cannot save</source>
        <translation>无法保存</translation>
    </message>
    <message>
        <source>The workflow cannot be saved yet:
{problems}</source>
        <translation>工作流还不能保存：
{problems}</translation>
    </message>
    <message numerus="yes">
        <source>Saved (%n warning(s)).</source>
        <translation>
            <numerusform>已保存（%n 个警告）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Save workflow</source>
        <translation>保存工作流</translation>
    </message>
    <message>
        <source>Save the workflow first: its versions start with its first save.</source>
        <translation>请先保存工作流：版本从第一次保存开始记录。</translation>
    </message>
    <message>
        <source>This workflow was deleted from the list; Save puts it back.</source>
        <translation>这个工作流已从列表中删除；保存会把它放回去。</translation>
    </message>
    <message>
        <source>Reloaded: the workflow was changed outside this editor.</source>
        <translation>已重新载入：这个工作流在编辑器外被修改了。</translation>
    </message>
    <message>
        <source>Changed outside the editor</source>
        <translation>在编辑器外被修改</translation>
    </message>
    <message>
        <source>“{name}” was changed outside this editor. Reload it (your unsaved changes are lost) or keep editing yours?</source>
        <translation>“{name}”在这个编辑器外被修改了。重新载入（未保存的修改会丢失），还是继续编辑你的版本？</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新载入</translation>
    </message>
    <message>
        <source>Keep Mine</source>
        <translation>保留我的</translation>
    </message>
    <message>
        <source>Runs need the app&apos;s browser.</source>
        <translation>运行需要应用的浏览器。</translation>
    </message>
    <message>
        <source>Cannot run: {problem}</source>
        <translation>无法运行：{problem}</translation>
    </message>
    <message>
        <source>Save the workflow first: a schedule runs the saved workflow.</source>
        <translation>请先保存工作流：定时任务运行的是已保存的工作流。</translation>
    </message>
    <message>
        <source>Scheduled: {name} (the Schedules panel lists it)</source>
        <translation>已设定定时任务：{name}（见“定时任务”面板）</translation>
    </message>
    <message>
        <source>Running {run}…</source>
        <translation>正在运行 {run}…</translation>
    </message>
    <message>
        <source>Run workflow</source>
        <translation>运行工作流</translation>
    </message>
    <message>
        <source>Run {run} {status}</source>
        <translation>运行 {run}：{status}</translation>
    </message>
    <message>
        <source> at {node}: {error}</source>
        <translation>，在 {node}：{error}</translation>
    </message>
    <message>
        <source>Screenshot: {path}</source>
        <translation>截图：{path}</translation>
    </message>
    <message>
        <source>HAR: {path}</source>
        <translation>HAR：{path}</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Showing run {run}: {status}</source>
        <translation>显示运行 {run}：{status}</translation>
    </message>
    <message>
        <source>Open an environment window with the page first, then press Pick.</source>
        <translation>先在环境窗口里打开这个页面，再点“拾取”。</translation>
    </message>
    <message>
        <source>Pick</source>
        <translation>拾取</translation>
    </message>
    <message>
        <source>Click the element in the environment window.</source>
        <translation>在环境窗口里点击这个元素。</translation>
    </message>
    <message>
        <source>No environment window is open.</source>
        <translation>没有打开的环境窗口。</translation>
    </message>
    <message>
        <source>1 match (exactly one: good)</source>
        <translation>1 个匹配（正好一个：可以）</translation>
    </message>
    <message numerus="yes">
        <source>%n matches (page actions need exactly one)</source>
        <translation>
            <numerusform>%n 个匹配（页面操作需要正好一个）</numerusform>
        </translation>
    </message>
    <message>
        <source>Test locator</source>
        <translation>测试定位器</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的修改</translation>
    </message>
    <message>
        <source>Save the changes to “{name}”?</source>
        <translation>保存对“{name}”的修改？</translation>
    </message>
</context>
<context>
    <name>Editors</name>
    <message>
        <source>New Workflow</source>
        <translation>新建工作流</translation>
    </message>
    <message>
        <source>A workflow named {name} exists already</source>
        <translation>已经有名为 {name} 的工作流</translation>
    </message>
</context>
<context>
    <name>EnvSettingsDialog</name>
    <message>
        <source>One pattern per line: &lt;b&gt;example.com&lt;/b&gt; (that host and www.), &lt;b&gt;*.example.com&lt;/b&gt; (the domain and every subdomain), &lt;b&gt;https://example.com&lt;/b&gt; (only over https), &lt;b&gt;host:8080&lt;/b&gt; (only that port), &lt;b&gt;*&lt;/b&gt; (everything). With allowed domains, every other host is blocked &amp;mdash; for pages, frames, scripts, images, fetch, WebSockets and downloads alike; blocked domains apply on top. Changes apply at once to open tabs.</source>
        <translation>每行一个规则：&lt;b&gt;example.com&lt;/b&gt;（这个主机和 www.），&lt;b&gt;*.example.com&lt;/b&gt;（这个域名及所有子域名），&lt;b&gt;https://example.com&lt;/b&gt;（只限 https），&lt;b&gt;host:8080&lt;/b&gt;（只限这个端口），&lt;b&gt;*&lt;/b&gt;（全部）。设了允许的域名后，其他主机一律拦截 &amp;mdash; 页面、框架、脚本、图片、fetch、WebSocket 和下载都一样；拦截的域名在此之上再生效。修改立即作用于已打开的标签页。</translation>
    </message>
    <message>
        <source>Environment Settings — {name}</source>
        <translation>环境设置 — {name}</translation>
    </message>
    <message>
        <source>Empty: every host is allowed</source>
        <translation>留空：允许所有主机</translation>
    </message>
    <message>
        <source>for example: *.doubleclick.net</source>
        <translation>例如：*.doubleclick.net</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <source>&amp;Remark:</source>
        <translation>备注(&amp;R)：</translation>
    </message>
    <message>
        <source>&amp;Allowed domains:</source>
        <translation>允许的域名(&amp;A)：</translation>
    </message>
    <message>
        <source>&amp;Blocked domains:</source>
        <translation>拦截的域名(&amp;B)：</translation>
    </message>
    <message>
        <source>ID: {id}</source>
        <translation>编号：{id}</translation>
    </message>
    <message>
        <source>Identity (empty: the browser’s own)</source>
        <translation>身份（留空：使用浏览器自己的）</translation>
    </message>
    <message>
        <source>for example: Mozilla/5.0 (Windows NT 10.0; Win64; x64) …</source>
        <translation>例如：Mozilla/5.0 (Windows NT 10.0; Win64; x64) …</translation>
    </message>
    <message>
        <source>for example: zh-CN, en (first preferred)</source>
        <translation>例如：zh-CN, en（第一个优先）</translation>
    </message>
    <message>
        <source>for example: Asia/Shanghai</source>
        <translation>例如：Asia/Shanghai</translation>
    </message>
    <message>
        <source>latitude</source>
        <translation>纬度</translation>
    </message>
    <message>
        <source>longitude</source>
        <translation>经度</translation>
    </message>
    <message>
        <source>accuracy (m), default 50</source>
        <translation>精度（米），默认 50</translation>
    </message>
    <message>
        <source>&amp;User agent:</source>
        <translation>用户代理(&amp;U)：</translation>
    </message>
    <message>
        <source>&amp;Languages:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <source>&amp;Time zone:</source>
        <translation>时区(&amp;T)：</translation>
    </message>
    <message>
        <source>&amp;Geolocation:</source>
        <translation>地理位置(&amp;G)：</translation>
    </message>
    <message>
        <source>Applies to every tab, worker and request of this environment only. Open pages see a new time zone or position after a reload.</source>
        <translation>只作用于这个环境的所有标签页、工作进程和请求。已打开的页面重新加载后才会看到新的时区或位置。</translation>
    </message>
    <message>
        <source>Geolocation: {problem}</source>
        <translation>地理位置：{problem}</translation>
    </message>
    <message>
        <source>The name is empty.</source>
        <translation>名称是空的。</translation>
    </message>
</context>
<context>
    <name>EnvTableModel</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Remark</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Recent sites</source>
        <translation>最近的网站</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>编号</translation>
    </message>
    <message>
        <source>  (default)</source>
        <translation>（默认）</translation>
    </message>
</context>
<context>
    <name>EnvWindow</name>
    <message>
        <source>&amp;View</source>
        <translation>查看(&amp;V)</translation>
    </message>
    <message>
        <source>Tab group {name}</source>
        <translation>分组 {name}</translation>
    </message>
    <message>
        <source>Tab group</source>
        <translation>分组</translation>
    </message>
    <message>
        <source>New tab (Ctrl+T)</source>
        <translation>新标签页（Ctrl+T）</translation>
    </message>
    <message>
        <source>New tab</source>
        <translation>新标签页</translation>
    </message>
    <message>
        <source>Search or enter an address</source>
        <translation>搜索，或输入网址</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>后退</translation>
    </message>
    <message>
        <source>Back (Alt+Left)</source>
        <translation>后退（Alt+Left）</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>前进</translation>
    </message>
    <message>
        <source>Forward (Alt+Right)</source>
        <translation>前进（Alt+Right）</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Reload (F5)</source>
        <translation>刷新（F5）</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop loading (Esc)</source>
        <translation>停止加载（Esc）</translation>
    </message>
    <message>
        <source>Home</source>
        <translation>主页</translation>
    </message>
    <message>
        <source>Home page (Alt+Home)</source>
        <translation>主页（Alt+Home）</translation>
    </message>
    <message>
        <source>New Tab</source>
        <translation>新标签页</translation>
    </message>
    <message>
        <source>Close Tab</source>
        <translation>关闭标签页</translation>
    </message>
    <message>
        <source>Next Tab</source>
        <translation>下一个标签页</translation>
    </message>
    <message>
        <source>Previous Tab</source>
        <translation>上一个标签页</translation>
    </message>
    <message>
        <source>Open Location</source>
        <translation>打开网址</translation>
    </message>
    <message>
        <source>Close Window</source>
        <translation>关闭窗口</translation>
    </message>
    <message>
        <source>Environments</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>Show the environments (Ctrl+Shift+E)</source>
        <translation>显示环境列表（Ctrl+Shift+E）</translation>
    </message>
    <message>
        <source>Navigation</source>
        <translation>导航</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Window</source>
        <translation>窗口(&amp;W)</translation>
    </message>
    <message>
        <source>Menu</source>
        <translation>菜单</translation>
    </message>
    <message>
        <source>Close tab (Ctrl+W)</source>
        <translation>关闭标签页（Ctrl+W）</translation>
    </message>
    <message>
        <source>Add to new group…</source>
        <translation>将标签页添加到新组…</translation>
    </message>
    <message>
        <source>Add to group</source>
        <translation>加入分组</translation>
    </message>
    <message>
        <source>Remove from group</source>
        <translation>移出分组</translation>
    </message>
    <message>
        <source>Close while recording</source>
        <translation>正在录制</translation>
    </message>
    <message>
        <source>This window is recording “{title}”. Save the recording as a workflow before the window closes?</source>
        <translation>这个窗口正在录制“{title}”。关闭窗口前，要把录制保存为工作流吗？</translation>
    </message>
    <message>
        <source>Save Recording…</source>
        <translation>保存录制…</translation>
    </message>
    <message>
        <source>Discard Recording</source>
        <translation>丢弃录制</translation>
    </message>
    <message>
        <source>Keep Recording</source>
        <translation>继续录制</translation>
    </message>
    <message>
        <source>Close tab</source>
        <translation>关闭标签页</translation>
    </message>
    <message>
        <source>New tab group</source>
        <translation>新建分组</translation>
    </message>
    <message>
        <source>Name of the group:</source>
        <translation>分组名称：</translation>
    </message>
    <message>
        <source>Group: {name}</source>
        <translation>分组：{name}</translation>
    </message>
    <message>
        <source>Record</source>
        <translation>录制</translation>
    </message>
    <message>
        <source>Record what you do in this tab as a workflow (Ctrl+Shift+R)</source>
        <translation>把你在这个标签页里的操作录制成工作流（Ctrl+Shift+R）</translation>
    </message>
    <message>
        <source>Stop recording</source>
        <translation>停止录制</translation>
    </message>
    <message>
        <source>Recording</source>
        <translation>录制中</translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Downloads (Ctrl+Shift+Y)</source>
        <translation>下载（Ctrl+Shift+Y）</translation>
    </message>
</context>
<context>
    <name>EnvWindows</name>
    <message>
        <source>Open Environment</source>
        <translation>打开环境</translation>
    </message>
</context>
<context>
    <name>EnvironmentsPanel</name>
    <message>
        <source>&amp;New…</source>
        <translation>新建(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <source>Re&amp;name…</source>
        <translation>重命名(&amp;N)…</translation>
    </message>
    <message>
        <source>Edit &amp;Remark…</source>
        <translation>修改备注(&amp;R)…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>删除(&amp;D)…</translation>
    </message>
    <message>
        <source>Only the default environment so far</source>
        <translation>目前只有默认环境</translation>
    </message>
    <message>
        <source>Create an environment for each account or role: each keeps its own logins, cookies and storage, side by side.</source>
        <translation>为每个账号或角色建一套环境：各自保存自己的登录、Cookie 和存储，互不干扰。</translation>
    </message>
    <message>
        <source>Create an Environment…</source>
        <translation>新建环境…</translation>
    </message>
    <message>
        <source>The default environment cannot be deleted</source>
        <translation>默认环境不能删除</translation>
    </message>
    <message>
        <source>New Environment</source>
        <translation>新建环境</translation>
    </message>
    <message>
        <source>Rename Environment</source>
        <translation>重命名环境</translation>
    </message>
    <message>
        <source>New name:</source>
        <translation>新名称：</translation>
    </message>
    <message>
        <source>Edit Remark</source>
        <translation>修改备注</translation>
    </message>
    <message>
        <source>Remark for {name}:</source>
        <translation>{name} 的备注：</translation>
    </message>
    <message>
        <source>Environment Settings</source>
        <translation>环境设置</translation>
    </message>
    <message>
        <source>Delete Environment</source>
        <translation>删除环境</translation>
    </message>
    <message>
        <source>Delete the environment “{name}”?

Its window is closed and its cookies, logins and stored site data are removed. This cannot be undone.</source>
        <translation>删除环境“{name}”？

它的窗口会关闭，Cookie、登录和保存的网站数据都会清除。此操作无法撤销。</translation>
    </message>
</context>
<context>
    <name>HandoffBanner</name>
    <message>
        <source>Handed over to you</source>
        <translation>已交接给你</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Give the page back to BrowserPilot</source>
        <translation>把页面交还给 BrowserPilot</translation>
    </message>
</context>
<context>
    <name>HistoryDialog</name>
    <message>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <source>&amp;Restore This Version</source>
        <translation>恢复此版本(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Accept Repair</source>
        <translation>接受修复(&amp;A)</translation>
    </message>
    <message>
        <source>Versions</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Proposed Repairs</source>
        <translation>建议的修复</translation>
    </message>
    <message>
        <source>{version}  {at}  {reason}  ({nodes} nodes)</source>
        <translation>{version}  {at}  {reason}  （{nodes} 个节点）</translation>
    </message>
    <message>
        <source>{node} {title}: healed to {element} (score {score})</source>
        <translation>{node} {title}：已自愈到 {element}（得分 {score}）</translation>
    </message>
    <message>
        <source>Proposed Repairs ({n})</source>
        <translation>建议的修复（{n}）</translation>
    </message>
    <message>
        <source>No run of this workflow proposes a repair.</source>
        <translation>此工作流的运行没有建议任何修复。</translation>
    </message>
    <message>
        <source>The oldest version kept.</source>
        <translation>保留的最早版本。</translation>
    </message>
    <message>
        <source>No change.</source>
        <translation>没有变化。</translation>
    </message>
    <message>
        <source>Run {run}, node {node}
was: {before}
now: {after}
found: {element}
score {score}: {why}</source>
        <translation>运行 {run}，节点 {node}
原来：{before}
现在：{after}
找到：{element}
得分 {score}：{why}</translation>
    </message>
    <message>
        <source>Restored version {old} as version {new}.</source>
        <translation>已将版本 {old} 恢复为版本 {new}。</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Repaired node {node} (version {version}).</source>
        <translation>已修复节点 {node}（版本 {version}）。</translation>
    </message>
    <message>
        <source>Accept Repair</source>
        <translation>接受修复</translation>
    </message>
</context>
<context>
    <name>JobRow</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Running “{name}” in {envs}…</source>
        <translation>正在 {envs} 中运行“{name}”…</translation>
    </message>
    <message>
        <source>Running “{name}”…</source>
        <translation>正在运行“{name}”…</translation>
    </message>
    <message>
        <source>{done}/{total}</source>
        <translation>{done}/{total}</translation>
    </message>
    <message>
        <source>Batch of “{name}” in {envs}: {done} of {total} rows done, {ok} ok</source>
        <translation>批量运行“{name}”（{envs}）：已完成 {done}/{total} 行，成功 {ok} 行</translation>
    </message>
    <message>
        <source>Batch of “{name}”: {done} of {total} rows done, {ok} ok</source>
        <translation>批量运行“{name}”：已完成 {done}/{total} 行，成功 {ok} 行</translation>
    </message>
    <message numerus="yes">
        <source>, %n not ok</source>
        <translation>
            <numerusform>，失败 %n 行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n done</source>
        <translation>
            <numerusform>已完成 %n 行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n failed</source>
        <translation>
            <numerusform>失败 %n 行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n left</source>
        <translation>
            <numerusform>剩余 %n 行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %n s left</source>
        <translation>
            <numerusform>大约还剩 %n 秒</numerusform>
        </translation>
    </message>
    <message>
        <source>about {time} left</source>
        <translation>大约还要 {time}</translation>
    </message>
    <message>
        <source>estimating the time left…</source>
        <translation>正在估算剩余时间…</translation>
    </message>
    <message>
        <source>Cancelling: {job}</source>
        <translation>正在取消：{job}</translation>
    </message>
</context>
<context>
    <name>LocatorEditor</name>
    <message>
        <source>Tried in this order when the selector and XPath do not find the element</source>
        <translation>选择器和 XPath 找不到元素时，按这个顺序逐个尝试</translation>
    </message>
    <message>
        <source>value of a new alternative</source>
        <translation>新备选的值</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Pick</source>
        <translation>拾取</translation>
    </message>
    <message>
        <source>Click an element in an environment window to fill this locator</source>
        <translation>在环境窗口里点击一个元素来填写这个定位器</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>测试</translation>
    </message>
    <message>
        <source>Count the matches on the front tab and outline them for a moment</source>
        <translation>在当前标签页上数出匹配的元素，并短暂地框出来</translation>
    </message>
    <message>
        <source>Selector:</source>
        <translation>选择器：</translation>
    </message>
    <message>
        <source>XPath:</source>
        <translation>XPath：</translation>
    </message>
    <message>
        <source>Alternatives:</source>
        <translation>备选：</translation>
    </message>
    <message>
        <source>Click the element in an environment window…</source>
        <translation>在环境窗口里点击这个元素…</translation>
    </message>
    <message>
        <source>Picked.</source>
        <translation>已拾取。</translation>
    </message>
    <message>
        <source>Testing…</source>
        <translation>正在测试…</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>BrowserPilot</source>
        <translation>BrowserPilot</translation>
    </message>
    <message>
        <source>Environments</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>Workflows</source>
        <translation>工作流</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <source>Agent runs</source>
        <translation>Agent 运行</translation>
    </message>
    <message>
        <source>Data folder: {path}</source>
        <translation>数据文件夹：{path}</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Environment</source>
        <translation>环境(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Workflow</source>
        <translation>工作流(&amp;W)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;New Environment…</source>
        <translation>新建环境(&amp;N)…</translation>
    </message>
    <message>
        <source>New &amp;Workflow…</source>
        <translation>新建工作流(&amp;W)…</translation>
    </message>
    <message>
        <source>&amp;Import Workflows…</source>
        <translation>导入工作流(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;Settings and Data Folder…</source>
        <translation>设置和数据文件夹(&amp;S)…</translation>
    </message>
    <message>
        <source>Open &amp;Data Folder</source>
        <translation>打开数据文件夹(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Rename…</source>
        <translation>重命名(&amp;R)…</translation>
    </message>
    <message>
        <source>Edit Re&amp;mark…</source>
        <translation>修改备注(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>Import &amp;Login from Browser…</source>
        <translation>从浏览器导入登录(&amp;L)…</translation>
    </message>
    <message>
        <source>&amp;Record a Workflow</source>
        <translation>录制工作流(&amp;R)</translation>
    </message>
    <message>
        <source>Ask an &amp;Agent</source>
        <translation>交给 Agent(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>删除(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;Run…</source>
        <translation>运行(&amp;R)…</translation>
    </message>
    <message>
        <source>Run as &amp;Batch…</source>
        <translation>批量运行(&amp;B)…</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>E&amp;xport…</source>
        <translation>导出(&amp;X)…</translation>
    </message>
    <message>
        <source>&amp;Delete Workflow…</source>
        <translation>删除工作流(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;Welcome and MCP Setup</source>
        <translation>欢迎页和 MCP 配置(&amp;W)</translation>
    </message>
    <message>
        <source>&amp;About BrowserPilot</source>
        <translation>关于 BrowserPilot(&amp;A)</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) still running will stop.</source>
        <translation>
            <numerusform>还有 %n 次运行没结束，会被停止。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n recording(s) not saved will be lost.</source>
        <translation>
            <numerusform>还有 %n 段录制没保存，会丢失。</numerusform>
        </translation>
    </message>
    <message>
        <source>Quit BrowserPilot</source>
        <translation>退出 BrowserPilot</translation>
    </message>
    <message>
        <source>Quit now?</source>
        <translation>现在退出吗？</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Don&apos;t Quit</source>
        <translation>不退出</translation>
    </message>
    <message>
        <source>New Workflow</source>
        <translation>新建工作流</translation>
    </message>
    <message>
        <source>Name of the new workflow:</source>
        <translation>新工作流的名称：</translation>
    </message>
    <message>
        <source>Recording needs an environment window.</source>
        <translation>录制需要一个环境窗口。</translation>
    </message>
    <message>
        <source>The agent needs an environment window.</source>
        <translation>Agent 需要一个环境窗口。</translation>
    </message>
</context>
<context>
    <name>McpSection</name>
    <message>
        <source>MCP server for AI agents</source>
        <translation>给 AI Agent 的 MCP 服务</translation>
    </message>
    <message>
        <source>Serve MCP to agents on this computer (127.0.0.1 only, with a token)</source>
        <translation>为这台电脑上的 Agent 提供 MCP 服务（只听 127.0.0.1，需要令牌）</translation>
    </message>
    <message>
        <source>Copy Token</source>
        <translation>复制令牌</translation>
    </message>
    <message>
        <source>Token copied</source>
        <translation>已复制令牌</translation>
    </message>
    <message>
        <source>Regenerate Token…</source>
        <translation>重新生成令牌…</translation>
    </message>
    <message>
        <source>Copy Configuration</source>
        <translation>复制配置</translation>
    </message>
    <message>
        <source>Configuration copied</source>
        <translation>已复制配置</translation>
    </message>
    <message>
        <source>Client:</source>
        <translation>客户端：</translation>
    </message>
    <message>
        <source>Running at {url}</source>
        <translation>运行在 {url}</translation>
    </message>
    <message>
        <source>Starting at {url}…</source>
        <translation>正在 {url} 启动…</translation>
    </message>
    <message>
        <source>Not running: {problem}</source>
        <translation>没有运行：{problem}</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>已关闭</translation>
    </message>
    <message>
        <source>Not running</source>
        <translation>没有运行</translation>
    </message>
    <message>
        <source>Regenerate MCP Token</source>
        <translation>重新生成 MCP 令牌</translation>
    </message>
    <message>
        <source>Make a new token? Clients configured with the current token stop working until you paste the new configuration.</source>
        <translation>生成新令牌？用当前令牌配置的客户端会失效，直到你粘贴新的配置。</translation>
    </message>
    <message>
        <source>New token made: update your clients&apos; configuration.</source>
        <translation>已生成新令牌：请更新客户端的配置。</translation>
    </message>
</context>
<context>
    <name>Minimap</name>
    <message>
        <source>Overview: click or drag to move the view</source>
        <translation>全局视图：点击或拖动来移动视野</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <source>Read the models the endpoint offers (its /v1/models)</source>
        <translation>读取服务提供的模型（它的 /v1/models）</translation>
    </message>
    <message>
        <source>Asking the endpoint for its models…</source>
        <translation>正在向服务查询模型…</translation>
    </message>
    <message>
        <source>No list: {error}</source>
        <translation>没有列表：{error}</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) offered</source>
        <translation>
            <numerusform>提供 %n 个模型</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>NewEnvironmentDialog</name>
    <message>
        <source>New Environment</source>
        <translation>新建环境</translation>
    </message>
    <message>
        <source>for example: Work account</source>
        <translation>例如：工作账号</translation>
    </message>
    <message>
        <source>Optional note: which account, what it is for…</source>
        <translation>可选说明：哪个账号，做什么用…</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <source>&amp;Remark:</source>
        <translation>备注(&amp;R)：</translation>
    </message>
    <message>
        <source>Each environment keeps its own logins, cookies and storage.</source>
        <translation>每套环境各自保存登录、Cookie 和存储。</translation>
    </message>
</context>
<context>
    <name>NodeField</name>
    <message>
        <source>Body</source>
        <translation>请求体</translation>
    </message>
    <message>
        <source>Mouse button</source>
        <translation>鼠标按键</translation>
    </message>
    <message>
        <source>Cases</source>
        <translation>分支</translation>
    </message>
    <message>
        <source>Case id</source>
        <translation>分支编号</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Comparison</source>
        <translation>判断方式</translation>
    </message>
    <message>
        <source>Conditions</source>
        <translation>条件</translation>
    </message>
    <message>
        <source>Clicks</source>
        <translation>点击次数</translation>
    </message>
    <message>
        <source>Data from</source>
        <translation>数据来源</translation>
    </message>
    <message>
        <source>Default</source>
        <translation>默认值</translation>
    </message>
    <message>
        <source>Direction</source>
        <translation>方向</translation>
    </message>
    <message>
        <source>Distance</source>
        <translation>距离</translation>
    </message>
    <message>
        <source>Across (px)</source>
        <translation>横向 (px)</translation>
    </message>
    <message>
        <source>Down (px)</source>
        <translation>纵向 (px)</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>Entry</source>
        <translation>输入方式</translation>
    </message>
    <message>
        <source>File name</source>
        <translation>文件名</translation>
    </message>
    <message>
        <source>Flags</source>
        <translation>标志</translation>
    </message>
    <message>
        <source>Follow the new tab</source>
        <translation>跟随新标签页</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>分组</translation>
    </message>
    <message>
        <source>Headers</source>
        <translation>请求头</translation>
    </message>
    <message>
        <source>Headers from</source>
        <translation>表头来源</translation>
    </message>
    <message>
        <source>Items from</source>
        <translation>列表来源</translation>
    </message>
    <message>
        <source>Label</source>
        <translation>显示名</translation>
    </message>
    <message>
        <source>Element</source>
        <translation>元素</translation>
    </message>
    <message>
        <source>At most</source>
        <translation>最多</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Offset</source>
        <translation>偏移</translation>
    </message>
    <message>
        <source>Native select</source>
        <translation>原生下拉框</translation>
    </message>
    <message>
        <source>Option</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>Outputs</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Pattern</source>
        <translation>正则</translation>
    </message>
    <message>
        <source>Required</source>
        <translation>必填</translation>
    </message>
    <message>
        <source>Retries</source>
        <translation>重试次数</translation>
    </message>
    <message>
        <source>Rows from</source>
        <translation>行来源</translation>
    </message>
    <message>
        <source>Save as</source>
        <translation>另存为</translation>
    </message>
    <message>
        <source>Save to</source>
        <translation>保存到</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Screenshot height</source>
        <translation>截图高度</translation>
    </message>
    <message>
        <source>Screenshot width</source>
        <translation>截图宽度</translation>
    </message>
    <message>
        <source>Script</source>
        <translation>脚本</translation>
    </message>
    <message>
        <source>Wait until</source>
        <translation>等到</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>Timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Until</source>
        <translation>直到</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Value from</source>
        <translation>取值来源</translation>
    </message>
    <message>
        <source>Variable</source>
        <translation>参数名</translation>
    </message>
    <message>
        <source>Variables</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Input by</source>
        <translation>输入途径</translation>
    </message>
    <message>
        <source>x</source>
        <translation>x</translation>
    </message>
    <message>
        <source>y</source>
        <translation>y</translation>
    </message>
</context>
<context>
    <name>NodeForm</name>
    <message>
        <source>The type {kind} is not known here: its fields are kept as they are.</source>
        <translation>这里不认识类型 {kind}：它的字段原样保留。</translation>
    </message>
    <message>
        <source>{field}{required}:</source>
        <translation>{field}{required}：</translation>
    </message>
    <message>
        <source>Kept as they are: {keys}</source>
        <translation>原样保留：{keys}</translation>
    </message>
    <message>
        <source>(default: {value})</source>
        <translation>（默认：{value}）</translation>
    </message>
    <message>
        <source>JSON (default: {value})</source>
        <translation>JSON（默认：{value}）</translation>
    </message>
    <message>
        <source>JSON</source>
        <translation>JSON</translation>
    </message>
    <message>
        <source>default: {value}</source>
        <translation>默认：{value}</translation>
    </message>
</context>
<context>
    <name>NodeKind</name>
    <message>
        <source>start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>end</source>
        <translation>结束</translation>
    </message>
    <message>
        <source>if-else</source>
        <translation>判断</translation>
    </message>
    <message>
        <source>loop</source>
        <translation>循环</translation>
    </message>
    <message>
        <source>goto</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>click</source>
        <translation>点击</translation>
    </message>
    <message>
        <source>fill</source>
        <translation>填写</translation>
    </message>
    <message>
        <source>select</source>
        <translation>选择</translation>
    </message>
    <message>
        <source>press</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>scroll</source>
        <translation>滚动</translation>
    </message>
    <message>
        <source>swipe</source>
        <translation>滑动</translation>
    </message>
    <message>
        <source>upload</source>
        <translation>上传</translation>
    </message>
    <message>
        <source>wait</source>
        <translation>等待</translation>
    </message>
    <message>
        <source>extract</source>
        <translation>提取</translation>
    </message>
    <message>
        <source>export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>script</source>
        <translation>页面脚本</translation>
    </message>
    <message>
        <source>code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>cdp</source>
        <translation>CDP</translation>
    </message>
    <message>
        <source>http-request</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>handoff</source>
        <translation>交接</translation>
    </message>
    <message>
        <source>captcha</source>
        <translation>验证码</translation>
    </message>
</context>
<context>
    <name>NodeMenu</name>
    <message>
        <source>Flow</source>
        <translation>流程</translation>
    </message>
    <message>
        <source>Page</source>
        <translation>页面</translation>
    </message>
    <message>
        <source>Wait &amp; extract</source>
        <translation>等待和提取</translation>
    </message>
    <message>
        <source>Data &amp; debug</source>
        <translation>数据和调试</translation>
    </message>
    <message>
        <source>People</source>
        <translation>人工</translation>
    </message>
    <message>
        <source>Add a node: type to search…</source>
        <translation>添加节点：输入以搜索…</translation>
    </message>
</context>
<context>
    <name>NodeSummary</name>
    <message>
        <source>Runs JavaScript inside the page; it returns an object.</source>
        <translation>在页面里运行 JavaScript，返回一个对象。</translation>
    </message>
    <message>
        <source>Runs JavaScript on its own (no page, no network); it returns an object.</source>
        <translation>单独运行 JavaScript（没有页面，也不联网），返回一个对象。</translation>
    </message>
    <message>
        <source>Sends one Chrome DevTools Protocol command.</source>
        <translation>发送一条 Chrome DevTools Protocol 命令。</translation>
    </message>
    <message>
        <source>Sends an HTTP request; its output is the status, the body and its JSON.</source>
        <translation>发送一个 HTTP 请求，输出状态码、正文和 JSON。</translation>
    </message>
    <message>
        <source>Downloads a file into the run&apos;s folder, by a click or from an address.</source>
        <translation>点击或按地址下载一个文件到运行的文件夹。</translation>
    </message>
    <message>
        <source>The workflow&apos;s inputs: each is asked for before a run.</source>
        <translation>工作流的参数：每次运行前填写。</translation>
    </message>
    <message>
        <source>The end of a branch: its outputs become the run&apos;s outputs.</source>
        <translation>分支的结束：这里的输出就是运行的输出。</translation>
    </message>
    <message>
        <source>Takes the branch of the first case whose conditions all hold, else the false branch.</source>
        <translation>走第一个条件全部成立的分支，都不成立就走 false 分支。</translation>
    </message>
    <message>
        <source>Runs its body once per item of a list, or until a condition holds.</source>
        <translation>对列表的每一项运行一遍循环体，或者一直运行到条件成立。</translation>
    </message>
    <message>
        <source>Opens an address in the tab.</source>
        <translation>在标签页里打开一个地址。</translation>
    </message>
    <message>
        <source>Clicks an element, or a point of the page.</source>
        <translation>点击一个元素，或者页面上的一个点。</translation>
    </message>
    <message>
        <source>Types or pastes text into a field.</source>
        <translation>在输入框里输入或粘贴文本。</translation>
    </message>
    <message>
        <source>Chooses an option of a list.</source>
        <translation>在下拉列表里选一个选项。</translation>
    </message>
    <message>
        <source>Presses a key or a shortcut: Enter, Tab, Ctrl+A and so on.</source>
        <translation>按一个键或快捷键：Enter、Tab、Ctrl+A 等。</translation>
    </message>
    <message>
        <source>Scrolls the page or an element, once or until an element appears.</source>
        <translation>滚动页面或一个元素，一次，或者直到某个元素出现。</translation>
    </message>
    <message>
        <source>Swipes the page or an element, once or until an element appears.</source>
        <translation>滑动页面或一个元素，一次，或者直到某个元素出现。</translation>
    </message>
    <message>
        <source>Chooses files for a file field.</source>
        <translation>给文件输入框选择文件。</translation>
    </message>
    <message>
        <source>Hands the tab to the person with a message, until the next step&apos;s element appears.</source>
        <translation>带着提示把标签页交给人，直到下一步的元素出现。</translation>
    </message>
    <message>
        <source>Hands the tab to the person while a captcha is shown.</source>
        <translation>出现验证码时把标签页交给人来处理。</translation>
    </message>
    <message>
        <source>Waits until an element appears or is gone, at most the timeout (seconds).</source>
        <translation>等一个元素出现或消失，最多等超时的秒数。</translation>
    </message>
    <message>
        <source>Takes a part of a value with a regular expression.</source>
        <translation>用正则表达式从一个值里取出一部分。</translation>
    </message>
    <message>
        <source>Writes a table file (CSV, Excel, JSON and more) into the run&apos;s folder.</source>
        <translation>把一个表格文件（CSV、Excel、JSON 等）写进运行的文件夹。</translation>
    </message>
</context>
<context>
    <name>PageGuard</name>
    <message>
        <source>Blocked: {host}</source>
        <translation>已拦截：{host}</translation>
    </message>
    <message>
        <source>Blocked by this environment’s network policy</source>
        <translation>被这套环境的网络规则拦截了</translation>
    </message>
    <message>
        <source>{host} is not allowed in {env}.</source>
        <translation>{env} 里不允许访问 {host}。</translation>
    </message>
    <message>
        <source>This address is not allowed in {env}.</source>
        <translation>{env} 里不允许访问这个地址。</translation>
    </message>
    <message>
        <source>Rule: {rule}</source>
        <translation>规则：{rule}</translation>
    </message>
    <message>
        <source>To open it, change the allowed or blocked domains in the environment’s settings (Environments → Settings…), then reload.</source>
        <translation>要打开它，请在环境设置里（环境 → 设置…）修改允许或拦截的域名，然后刷新。</translation>
    </message>
</context>
<context>
    <name>PictureBox</name>
    <message>
        <source>Double-click to open the screenshot</source>
        <translation>双击打开截图</translation>
    </message>
</context>
<context>
    <name>RecordList</name>
    <message>
        <source>condition</source>
        <translation>条件</translation>
    </message>
    <message>
        <source>case</source>
        <translation>分支</translation>
    </message>
    <message>
        <source>variable</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>item</source>
        <translation>项</translation>
    </message>
    <message>
        <source>Add {noun}</source>
        <translation>添加{noun}</translation>
    </message>
    <message>
        <source>name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>{field}:</source>
        <translation>{field}：</translation>
    </message>
    <message>
        <source>Remove {noun}</source>
        <translation>删除{noun}</translation>
    </message>
    <message>
        <source>comma-separated</source>
        <translation>用逗号分隔</translation>
    </message>
</context>
<context>
    <name>RecordPanel</name>
    <message>
        <source>Recording</source>
        <translation>录制</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete the selected step</source>
        <translation>删除选中的步骤</translation>
    </message>
    <message>
        <source>Edit value…</source>
        <translation>修改值…</translation>
    </message>
    <message>
        <source>Change the typed text, option, keys, address or message</source>
        <translation>修改输入的文字、选项、按键、网址或提示</translation>
    </message>
    <message>
        <source>Make input…</source>
        <translation>设为参数…</translation>
    </message>
    <message>
        <source>The typed value becomes a start input, asked for at each run</source>
        <translation>输入的值变成开始参数，每次运行时填写</translation>
    </message>
    <message>
        <source>Locator</source>
        <translation>定位器</translation>
    </message>
    <message>
        <source>Use another recorded way to find the element</source>
        <translation>换一种录下的方式来找这个元素</translation>
    </message>
    <message>
        <source>Insert</source>
        <translation>插入</translation>
    </message>
    <message>
        <source>Handoff here…</source>
        <translation>在这里交接…</translation>
    </message>
    <message>
        <source>Captcha here</source>
        <translation>在这里过验证码</translation>
    </message>
    <message>
        <source>Wait for this (pick an element)</source>
        <translation>等待它出现（拾取一个元素）</translation>
    </message>
    <message>
        <source>Capture text (pick an element)…</source>
        <translation>提取文字（拾取一个元素）…</translation>
    </message>
    <message>
        <source>Check (pick an element)</source>
        <translation>检查（拾取一个元素）</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop recording and save the workflow</source>
        <translation>停止录制并保存工作流</translation>
    </message>
    <message>
        <source>This tab is not being recorded.</source>
        <translation>这个标签页没有在录制。</translation>
    </message>
    <message>
        <source>node: {type}</source>
        <translation>节点：{type}</translation>
    </message>
    <message>
        <source>alternatives: {list}</source>
        <translation>备选：{list}</translation>
    </message>
    <message>
        <source>Not recorded: {why}. Delete this step (after doing the action again in a way that records, or if the workflow does not need it) to be able to save.</source>
        <translation>未录下：{why}。删除这一步（先用能被录下的方式重做这个操作，或者工作流不需要它）之后才能保存。</translation>
    </message>
    <message>
        <source>{dot} &lt;b&gt;Recording paused&lt;/b&gt; — {reason}</source>
        <translation>{dot} &lt;b&gt;录制已暂停&lt;/b&gt; — {reason}</translation>
    </message>
    <message>
        <source>{dot} &lt;b&gt;Recording&lt;/b&gt; — click the element for “{what}” in the page</source>
        <translation>{dot} &lt;b&gt;录制中&lt;/b&gt; — 在页面上点击“{what}”的元素</translation>
    </message>
    <message numerus="yes">
        <source>{dot} &lt;b&gt;Recording&lt;/b&gt; %n step(s) — act in the page as usual</source>
        <translation>
            <numerusform>{dot} &lt;b&gt;录制中&lt;/b&gt; %n 步 — 照常在页面上操作</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n action(s) could not be recorded (in red): the workflow cannot be saved until each is deleted.</source>
        <translation>
            <numerusform>有 %n 个操作没能录下（红色）：逐个删除之前，工作流无法保存。</numerusform>
        </translation>
    </message>
    <message>
        <source>Edit the step</source>
        <translation>修改这一步</translation>
    </message>
    <message>
        <source>{step}

New value:</source>
        <translation>{step}

新的值：</translation>
    </message>
    <message>
        <source>Make input</source>
        <translation>设为参数</translation>
    </message>
    <message>
        <source>Name of the start input (asked for at each run; the recorded value is its default):</source>
        <translation>开始参数的名称（每次运行时填写；录下的值作为默认值）：</translation>
    </message>
    <message>
        <source>As recorded: {locator}</source>
        <translation>录制时的：{locator}</translation>
    </message>
    <message>
        <source>(none: inside a web component, found by the alternatives below)</source>
        <translation>（无：在 Web 组件里，由下面的备选定位找到）</translation>
    </message>
    <message>
        <source>Handoff here</source>
        <translation>在这里交接</translation>
    </message>
    <message>
        <source>Message for the person (e.g. type the one-time code, then press Done):</source>
        <translation>给人的提示（例如：输入验证码，然后点“完成”）：</translation>
    </message>
    <message>
        <source>Capture text</source>
        <translation>提取文字</translation>
    </message>
    <message>
        <source>Name of the output:</source>
        <translation>输出的名称：</translation>
    </message>
    <message>
        <source>Recorded workflow</source>
        <translation>录制的工作流</translation>
    </message>
</context>
<context>
    <name>RunDetail</name>
    <message>
        <source>Select a run to see its detail.</source>
        <translation>选择一次运行查看详情。</translation>
    </message>
    <message>
        <source>Status:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>Workflow:</source>
        <translation>工作流：</translation>
    </message>
    <message>
        <source>Environment:</source>
        <translation>环境：</translation>
    </message>
    <message>
        <source>Started:</source>
        <translation>开始时间：</translation>
    </message>
    <message>
        <source>Ended:</source>
        <translation>结束时间：</translation>
    </message>
    <message>
        <source>Duration:</source>
        <translation>耗时：</translation>
    </message>
    <message>
        <source>Batch:</source>
        <translation>批量：</translation>
    </message>
    <message>
        <source>Stopped at:</source>
        <translation>停在：</translation>
    </message>
    <message>
        <source>Error:</source>
        <translation>错误：</translation>
    </message>
    <message>
        <source>HAR:</source>
        <translation>HAR：</translation>
    </message>
    <message>
        <source>Screenshot:</source>
        <translation>现场截图：</translation>
    </message>
    <message>
        <source>Click to open the screenshot</source>
        <translation>点击打开截图</translation>
    </message>
    <message>
        <source>Show HAR in Folder</source>
        <translation>在文件夹中显示 HAR</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <source>Show in &amp;Folder</source>
        <translation>在文件夹中显示(&amp;F)</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Locator</source>
        <translation>定位器</translation>
    </message>
    <message>
        <source>Outputs</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Tables</source>
        <translation>表格</translation>
    </message>
    <message>
        <source>Trace</source>
        <translation>执行过程</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>{workflow} — {status}  ({id})</source>
        <translation>{workflow} — {status}  （{id}）</translation>
    </message>
    <message>
        <source>{batch}, row {n}</source>
        <translation>{batch}，第 {n} 行</translation>
    </message>
    <message>
        <source>, ran on worker {worker}</source>
        <translation>，在工作机 {worker} 上运行</translation>
    </message>
    <message>
        <source>{duration} so far</source>
        <translation>已用 {duration}</translation>
    </message>
    <message>
        <source>  (a person took over during the run)</source>
        <translation>（运行中有人接管了）</translation>
    </message>
    <message>
        <source>, tab {tab}</source>
        <translation>，标签页 {tab}</translation>
    </message>
    <message>
        <source>healed ({score}): {element}</source>
        <translation>已自愈（{score}）：{element}</translation>
    </message>
    <message>
        <source>No locator found the element any more; its fingerprint did.
was: {before}
now: {element}
score {score}: {why}</source>
        <translation>定位器已找不到该元素；由它的指纹找到。
原来：{before}
现在：{element}
得分 {score}：{why}</translation>
    </message>
    <message>
        <source>Files ({n})</source>
        <translation>文件（{n}）</translation>
    </message>
    <message>
        <source>Tables ({n})</source>
        <translation>表格（{n}）</translation>
    </message>
    <message>
        <source>Trace ({n} healed)</source>
        <translation>轨迹（{n} 个已自愈）</translation>
    </message>
    <message>
        <source>(the screenshot file is missing)</source>
        <translation>（截图文件不见了）</translation>
    </message>
</context>
<context>
    <name>RunInputsDialog</name>
    <message>
        <source>, </source>
        <comment>between the names of a list</comment>
        <translation>、</translation>
    </message>
    <message>
        <source>Input {name} ({kind})</source>
        <translation>参数 {name}（{kind}）</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>请选择…</translation>
    </message>
    <message>
        <source>hidden</source>
        <translation>输入时不显示</translation>
    </message>
    <message>
        <source>Secret: masked here, and stored as &lt;secret:{name}&gt; in the run record</source>
        <translation>机密：这里不显示，运行记录里存为 &lt;secret:{name}&gt;</translation>
    </message>
    <message>
        <source>Set</source>
        <translation>填写</translation>
    </message>
    <message>
        <source>Leave unchecked to run without this optional input</source>
        <translation>不勾选就不带这个可选参数运行</translation>
    </message>
    <message>
        <source>Run “{name}”</source>
        <translation>运行“{name}”</translation>
    </message>
    <message>
        <source>{label} *:</source>
        <translation>{label} *：</translation>
    </message>
    <message>
        <source>{label}:</source>
        <translation>{label}：</translation>
    </message>
    <message>
        <source>&amp;Environment:</source>
        <translation>环境(&amp;E)：</translation>
    </message>
    <message>
        <source>This workflow asks for no inputs.</source>
        <translation>这个工作流没有参数。</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>Required: {names}.</source>
        <translation>必填：{names}。</translation>
    </message>
    <message>
        <source>There is no environment to run in.</source>
        <translation>没有可以运行的环境。</translation>
    </message>
</context>
<context>
    <name>RunOverlay</name>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>Run {run}: {state}</source>
        <translation>运行 {run}：{state}</translation>
    </message>
    <message>
        <source>Error: {error}</source>
        <translation>错误：{error}</translation>
    </message>
    <message>
        <source>Output:</source>
        <translation>输出：</translation>
    </message>
</context>
<context>
    <name>RunStatus</name>
    <message>
        <source>ok</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>taken over</source>
        <translation>被接管</translation>
    </message>
    <message>
        <source>running…</source>
        <translation>运行中…</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
</context>
<context>
    <name>RunTableModel</name>
    <message>
        <source> · {n} healed</source>
        <translation> · {n} 个已自愈</translation>
    </message>
    <message>
        <source>{n} node(s) found by their fingerprint: their locators no longer matched</source>
        <translation>{n} 个节点由指纹找到：它们的定位器已不再匹配</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Workflow</source>
        <translation>工作流</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>  (row {n})</source>
        <translation>（第 {n} 行）</translation>
    </message>
    <message>
        <source>batch {batch}, row {n}</source>
        <translation>批量 {batch}，第 {n} 行</translation>
    </message>
    <message>
        <source>ran on worker {worker}</source>
        <translation>在工作机 {worker} 上运行</translation>
    </message>
</context>
<context>
    <name>RunTablesView</name>
    <message>
        <source>Filter rows…</source>
        <translation>筛选行…</translation>
    </message>
    <message>
        <source>Save as &amp;CSV…</source>
        <translation>另存为 &amp;CSV…</translation>
    </message>
    <message>
        <source>Save as &amp;XLSX…</source>
        <translation>另存为 &amp;XLSX…</translation>
    </message>
    <message>
        <source>O&amp;pen</source>
        <translation>打开(&amp;P)</translation>
    </message>
    <message>
        <source>Open with the desktop&apos;s application for it (a spreadsheet)</source>
        <translation>用桌面上对应的程序（电子表格）打开</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>output</source>
        <translation>输出</translation>
    </message>
    <message numerus="yes">
        <source>{name} ({kind}, %n row(s))</source>
        <translation>
            <numerusform>{name}（{kind}，%n 行）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{shown} of %n row(s)</source>
        <translation>
            <numerusform>{shown} / %n 行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n row(s)</source>
        <translation>
            <numerusform>%n 行</numerusform>
        </translation>
    </message>
    <message>
        <source>(cut to the first {n} rows)</source>
        <translation>（只显示前 {n} 行）</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Excel workbook (*.xlsx)</source>
        <translation>Excel 工作簿 (*.xlsx)</translation>
    </message>
    <message>
        <source>Save Table</source>
        <translation>保存表格</translation>
    </message>
    <message>
        <source>Saved {path}</source>
        <translation>已保存 {path}</translation>
    </message>
    <message>
        <source>Could not save: {problem}</source>
        <translation>无法保存：{problem}</translation>
    </message>
</context>
<context>
    <name>RunsPanel</name>
    <message>
        <source>(large value in {file}, {bytes} bytes)</source>
        <translation>（值太大，存在 {file}，{bytes} 字节）</translation>
    </message>
    <message>
        <source>&amp;Cancel Run</source>
        <translation>取消运行(&amp;C)</translation>
    </message>
    <message>
        <source>Accept &amp;Repair</source>
        <translation>接受修复(&amp;R)</translation>
    </message>
    <message>
        <source>No runs yet</source>
        <translation>还没有运行记录</translation>
    </message>
    <message>
        <source>Every run of a workflow is recorded here: its outputs, files, a screenshot where it stopped and each node&apos;s timing. Run a workflow from the Workflows panel, or with the command browserpilot run.</source>
        <translation>每次运行工作流都记在这里：输出、文件、停下时的现场截图和每个节点的耗时。可以在“工作流”面板里运行，或者用命令 browserpilot run。</translation>
    </message>
    <message>
        <source>Go to Workflows</source>
        <translation>去工作流</translation>
    </message>
    <message>
        <source>Cannot list runs: {error}</source>
        <translation>列不出运行记录：{error}</translation>
    </message>
    <message numerus="yes">
        <source>%n latest run(s)</source>
        <translation>
            <numerusform>最近 %n 次运行</numerusform>
        </translation>
    </message>
    <message>
        <source>Show on &amp;Graph</source>
        <translation>在画布上显示(&amp;G)</translation>
    </message>
    <message>
        <source>Cancel the selected run; its record is written as cancelled</source>
        <translation>取消选中的运行；它的记录会写为已取消</translation>
    </message>
    <message>
        <source>Only a running run can be cancelled</source>
        <translation>只有正在运行的才能取消</translation>
    </message>
    <message>
        <source>Keep the healed elements&apos; locators in the workflow ({n} nodes), as a new version</source>
        <translation>将自愈找到的元素的定位器保存到工作流中（{n} 个节点），作为新版本</translation>
    </message>
    <message>
        <source>A successful run of a saved workflow whose nodes were healed proposes a repair</source>
        <translation>已保存工作流的成功运行中若有节点自愈，会建议一次修复</translation>
    </message>
    <message>
        <source>Cancelling {id}…</source>
        <translation>正在取消 {id}…</translation>
    </message>
    <message>
        <source>Cancel Run</source>
        <translation>取消运行</translation>
    </message>
    <message>
        <source>Repaired {workflow}: {nodes} (version {version})</source>
        <translation>已修复 {workflow}：{nodes}（版本 {version}）</translation>
    </message>
</context>
<context>
    <name>ScheduleDialog</name>
    <message>
        <source>Edit Schedule</source>
        <translation>编辑定时任务</translation>
    </message>
    <message>
        <source>New Schedule</source>
        <translation>新建定时任务</translation>
    </message>
    <message>
        <source>Every N minutes</source>
        <translation>每隔 N 分钟</translation>
    </message>
    <message>
        <source>Every day at</source>
        <translation>每天的</translation>
    </message>
    <message>
        <source>On weekdays at</source>
        <translation>工作日的</translation>
    </message>
    <message>
        <source>Once, at</source>
        <translation>仅一次，在</translation>
    </message>
    <message>
        <source>Cron expression</source>
        <translation>Cron 表达式</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>One input a line: name=value</source>
        <translation>每行一个输入：名称=值</translation>
    </message>
    <message>
        <source>None: one run with the inputs above</source>
        <translation>不填：用上面的输入运行一次</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Run the rows on workers through:</source>
        <translation>在工作机上运行这些行，经由：</translation>
    </message>
    <message>
        <source>Run once when BrowserPilot is back</source>
        <translation>BrowserPilot 再次运行时补跑一次</translation>
    </message>
    <message>
        <source>Skip it</source>
        <translation>跳过</translation>
    </message>
    <message>
        <source> h</source>
        <translation> 小时</translation>
    </message>
    <message>
        <source>if at most</source>
        <translation>如果最多</translation>
    </message>
    <message>
        <source>old</source>
        <translation>以前</translation>
    </message>
    <message>
        <source>On</source>
        <translation>启用</translation>
    </message>
    <message>
        <source>Workflow:</source>
        <translation>工作流：</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Environment:</source>
        <translation>环境：</translation>
    </message>
    <message>
        <source>When:</source>
        <translation>时间：</translation>
    </message>
    <message>
        <source>Inputs:</source>
        <translation>输入：</translation>
    </message>
    <message>
        <source>Rows file:</source>
        <translation>数据行文件：</translation>
    </message>
    <message>
        <source>A missed time:</source>
        <translation>错过的时间：</translation>
    </message>
    <message>
        <source>Rows File</source>
        <translation>数据行文件</translation>
    </message>
    <message>
        <source>Rows (*.csv *.json)</source>
        <translation>数据行 (*.csv *.json)</translation>
    </message>
    <message>
        <source>that time has passed</source>
        <translation>这个时间已经过去</translation>
    </message>
    <message>
        <source>Cannot be scheduled: {reason}</source>
        <translation>无法定时：{reason}</translation>
    </message>
</context>
<context>
    <name>ScheduleTableModel</name>
    <message>
        <source>On</source>
        <translation>启用</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Workflow</source>
        <translation>工作流</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Last result</source>
        <translation>上次结果</translation>
    </message>
</context>
<context>
    <name>SchedulesPanel</name>
    <message>
        <source>&amp;New Schedule…</source>
        <translation>新建定时任务(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Edit…</source>
        <translation>编辑(&amp;E)…</translation>
    </message>
    <message>
        <source>Run &amp;Now</source>
        <translation>立即运行(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>删除(&amp;D)…</translation>
    </message>
    <message>
        <source>No schedules yet</source>
        <translation>还没有定时任务。</translation>
    </message>
    <message>
        <source>A schedule runs a saved workflow by itself: every few minutes, every day or on weekdays at a time, once, or by a cron expression. BrowserPilot stays in the tray to run it and calls you when a step needs a person.</source>
        <translation>定时任务会自动运行已保存的工作流：每隔几分钟、每天或工作日的某个时间、仅一次，或按 Cron 表达式。BrowserPilot 留在托盘中运行它，需要人来完成某一步时会叫你。</translation>
    </message>
    <message>
        <source>New Schedule…</source>
        <translation>新建定时任务…</translation>
    </message>
    <message>
        <source>All schedules are paused (the tray menu resumes them).</source>
        <translation>所有定时任务已暂停（在托盘菜单中恢复）。</translation>
    </message>
    <message>
        <source>{when} — off</source>
        <translation>{when} — 已停用</translation>
    </message>
    <message>
        <source>never run</source>
        <translation>从未运行</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>missed</source>
        <translation>已错过</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>{status} ({ok} of {total} ok)</source>
        <translation>{status}（{total} 行中 {ok} 行成功）</translation>
    </message>
    <message>
        <source>New Schedule</source>
        <translation>新建定时任务</translation>
    </message>
    <message>
        <source>Save a workflow first: a schedule runs a saved workflow.</source>
        <translation>请先保存一个工作流：定时任务运行的是已保存的工作流。</translation>
    </message>
    <message>
        <source>Delete Schedule</source>
        <translation>删除定时任务</translation>
    </message>
    <message>
        <source>Delete the schedule {name}? Its past runs stay in the Runs panel.</source>
        <translation>删除定时任务 {name}？它以前的运行记录仍保留在运行记录面板中。</translation>
    </message>
    <message>
        <source>Schedules</source>
        <translation>定时任务</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
</context>
<context>
    <name>StopDialog</name>
    <message>
        <source>Save the recording</source>
        <translation>保存录制</translation>
    </message>
    <message>
        <source>Replay now</source>
        <translation>马上回放</translation>
    </message>
    <message>
        <source>Workflow name:</source>
        <translation>工作流名称：</translation>
    </message>
</context>
<context>
    <name>TabControl</name>
    <message>
        <source>BrowserPilot is operating this page</source>
        <translation>BrowserPilot 正在操作这个页面</translation>
    </message>
    <message>
        <source>BrowserPilot handed this page to you. Click Done when you are finished.</source>
        <translation>BrowserPilot 把这个页面交接给你了。做完后点“完成”。</translation>
    </message>
</context>
<context>
    <name>ToolProfileChoice</name>
    <message>
        <source>The default: the tools for a whole task, few enough for clients that take only 40. The agent lists more with tools_enable when it needs them.</source>
        <translation>默认：完成一整个任务要用的工具，只收 40 个工具的客户端也装得下。需要更多时，Agent 用 tools_enable 打开。</translation>
    </message>
    <message>
        <source>Every tool at once. Clients that take a limited number of tools drop the rest.</source>
        <translation>一次列出全部工具。只收有限个工具的客户端会丢掉多出来的。</translation>
    </message>
    <message>
        <source>For agents and SKILL files written for the original BrowserPilot: its tool names and call forms, results as JSON text.</source>
        <translation>给为原版 BrowserPilot 写的 Agent 和 SKILL 文件用：原版的工具名称和调用写法，结果是 JSON 文本。</translation>
    </message>
    <message>
        <source>Core (default)</source>
        <translation>核心（默认）</translation>
    </message>
    <message>
        <source>Full</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Original BrowserPilot&apos;s tools</source>
        <translation>原版 BrowserPilot 的工具</translation>
    </message>
    <message>
        <source>Tools:</source>
        <translation>工具：</translation>
    </message>
</context>
<context>
    <name>TraceMode</name>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>When the run fails</source>
        <translation>运行失败时</translation>
    </message>
    <message>
        <source>Always</source>
        <translation>始终</translation>
    </message>
</context>
<context>
    <name>TraceView</name>
    <message>
        <source>&amp;Play Video</source>
        <translation>播放视频(&amp;P)</translation>
    </message>
    <message>
        <source>E&amp;xport…</source>
        <translation>导出(&amp;X)…</translation>
    </message>
    <message>
        <source>One zip with the run&apos;s record, trace, screenshots, video and HAR, to attach to a bug report</source>
        <translation>一个 zip 文件，含运行记录、执行过程、截图、视频和 HAR，可附在问题报告里</translation>
    </message>
    <message>
        <source>Before (the element it acted on outlined)</source>
        <translation>之前（操作的元素用红框标出）</translation>
    </message>
    <message>
        <source>After</source>
        <translation>之后</translation>
    </message>
    <message>
        <source>Level</source>
        <translation>级别</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Console</source>
        <translation>控制台</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Select a run to see its trace.</source>
        <translation>选中一条运行记录，查看它的执行过程。</translation>
    </message>
    <message numerus="yes">
        <source>%n step(s)</source>
        <translation>
            <numerusform>%n 步</numerusform>
        </translation>
    </message>
    <message>
        <source>its screenshots and video were deleted to keep traces within the disk limit (Settings)</source>
        <translation>它的截图和视频已被删除，以免执行过程超出磁盘上限（设置）</translation>
    </message>
    <message>
        <source>no screenshots: the trace was off</source>
        <translation>没有截图：执行过程记录已关闭</translation>
    </message>
    <message>
        <source>no screenshots: they are kept when a run fails, and this one did not</source>
        <translation>没有截图：只在运行失败时保留，而这次没有失败</translation>
    </message>
    <message>
        <source>no screenshots were kept</source>
        <translation>没有保留截图</translation>
    </message>
    <message>
        <source>with a video</source>
        <translation>有视频</translation>
    </message>
    <message>
        <source>page error</source>
        <translation>页面错误</translation>
    </message>
    <message>
        <source>Console ({n})</source>
        <translation>控制台（{n}）</translation>
    </message>
    <message>
        <source>Requests ({n})</source>
        <translation>请求（{n}）</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始于</translation>
    </message>
    <message>
        <source>Took</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Element</source>
        <translation>元素</translation>
    </message>
    <message>
        <source>Locator</source>
        <translation>定位</translation>
    </message>
    <message>
        <source>Healed</source>
        <translation>自动修复</translation>
    </message>
    <message>
        <source>{before} → {element} (score {score}: {why})</source>
        <translation>{before} → {element}（得分 {score}：{why}）</translation>
    </message>
    <message>
        <source>(no screenshot)</source>
        <translation>（没有截图）</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>加载中…</translation>
    </message>
    <message>
        <source>(the screenshot file is missing)</source>
        <translation>（截图文件不见了）</translation>
    </message>
    <message>
        <source>Video of {run}</source>
        <translation>{run} 的视频</translation>
    </message>
    <message>
        <source>Export Run</source>
        <translation>导出运行记录</translation>
    </message>
    <message>
        <source>Zip archives (*.zip)</source>
        <translation>Zip 压缩包 (*.zip)</translation>
    </message>
    <message>
        <source>Exporting…</source>
        <translation>正在导出…</translation>
    </message>
    <message>
        <source>Exported to {path} ({files} files)</source>
        <translation>已导出到 {path}（{files} 个文件）</translation>
    </message>
    <message>
        <source>Not exported: {error}</source>
        <translation>未导出：{error}</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message numerus="yes">
        <source>BrowserPilot: %n run(s) need you</source>
        <translation>
            <numerusform>BrowserPilot：%n 个运行需要你</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>BrowserPilot: %n run(s) going</source>
        <translation>
            <numerusform>BrowserPilot：%n 个运行进行中</numerusform>
        </translation>
    </message>
    <message>
        <source>BrowserPilot: idle</source>
        <translation>BrowserPilot：空闲</translation>
    </message>
    <message>
        <source>Schedules are paused</source>
        <translation>定时任务已暂停</translation>
    </message>
    <message>
        <source>Open BrowserPilot</source>
        <translation>打开 BrowserPilot</translation>
    </message>
    <message>
        <source>Waiting for you</source>
        <translation>等你处理</translation>
    </message>
    <message>
        <source>Recent</source>
        <translation>最近</translation>
    </message>
    <message>
        <source>Pause All Schedules</source>
        <translation>暂停所有定时任务</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
</context>
<context>
    <name>Unattended</name>
    <message>
        <source>BrowserPilot is still running</source>
        <translation>BrowserPilot 仍在运行</translation>
    </message>
    <message>
        <source>Your schedules run from the tray. Quit from the tray&apos;s menu; turn this off in Settings.</source>
        <translation>定时任务在托盘中继续运行。可从托盘菜单退出；也可在设置中关闭此行为。</translation>
    </message>
    <message>
        <source>No System Tray</source>
        <translation>没有系统托盘</translation>
    </message>
    <message>
        <source>This desktop has no system tray, so BrowserPilot stays open (minimised) to run your schedules. Quit with File → Quit.</source>
        <translation>这个桌面没有系统托盘，所以 BrowserPilot 保持打开（最小化）来运行定时任务。退出请用 文件 → 退出。</translation>
    </message>
    <message>
        <source>A person is needed: {workflow}</source>
        <translation>需要人来处理：{workflow}</translation>
    </message>
    <message>
        <source>A person is needed</source>
        <translation>需要人来处理</translation>
    </message>
    <message>
        <source>{env}: {message}</source>
        <translation>{env}：{message}</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Batch finished: {name}</source>
        <translation>批量运行完成：{name}</translation>
    </message>
    <message>
        <source>{ok} ok, {failed} failed of {total}</source>
        <translation>共 {total} 行，{ok} 行成功，{failed} 行失败</translation>
    </message>
    <message>
        <source>Show Runs</source>
        <translation>查看运行记录</translation>
    </message>
    <message>
        <source>Run failed: {name}</source>
        <translation>运行失败：{name}</translation>
    </message>
    <message>
        <source>Show Run</source>
        <translation>查看运行</translation>
    </message>
    <message>
        <source>Schedule skipped: {name}</source>
        <translation>定时任务已跳过：{name}</translation>
    </message>
    <message>
        <source>Schedule missed: {name}</source>
        <translation>定时任务已错过：{name}</translation>
    </message>
    <message>
        <source>Show Schedules</source>
        <translation>查看定时任务</translation>
    </message>
    <message>
        <source>{workflow} — {where}</source>
        <translation>{workflow} — {where}</translation>
    </message>
</context>
<context>
    <name>UnattendedSection</name>
    <message>
        <source>Runs and agents</source>
        <translation>运行与 Agent</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Don&apos;t wait</source>
        <translation>不等待</translation>
    </message>
    <message>
        <source>Wait for unfinished requests:</source>
        <translation>等待未完成的请求：</translation>
    </message>
    <message>
        <source>When a run ends, an agent closes a tab or the app quits, what the page still has in flight (the order the last click posted, a fetch, a beacon) may finish for this long. A run lists what was cut off.</source>
        <translation>运行结束、Agent 关闭标签页或应用退出时，页面仍在发送的请求（最后一次点击提交的订单、fetch、beacon）最多再等这么久完成。运行记录会列出被中断的请求。</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>Never</source>
        <translation>从不</translation>
    </message>
    <message>
        <source>An app that &lt;code&gt;browserpilot mcp&lt;/code&gt; started without windows quits this long after its last agent client has gone, never while a run, a batch, a recording or a window someone uses is open. An app you started yourself never quits by itself.</source>
        <translation>由 &lt;code&gt;browserpilot mcp&lt;/code&gt; 无窗口启动的应用，在最后一个 Agent 客户端离开这么久后退出；有运行、批量运行、录制或有人在用的窗口时不会退出。你自己启动的应用不会自行退出。</translation>
    </message>
    <message>
        <source>Quit after idle:</source>
        <translation>空闲后退出：</translation>
    </message>
    <message>
        <source>Keep a trace of each run:</source>
        <translation>保留每次运行的执行过程：</translation>
    </message>
    <message>
        <source>A screenshot of every node (the element it acted on outlined), its console messages, page errors and requests: the Runs panel&apos;s Trace tab. A run, a batch or a schedule may ask otherwise.</source>
        <translation>每个节点的截图（操作的元素用红框标出）、控制台消息、页面错误和请求：在运行记录面板的“执行过程”页查看。单次运行、批量运行或定时任务可以另行指定。</translation>
    </message>
    <message>
        <source>Keep a video of each run:</source>
        <translation>保留每次运行的视频：</translation>
    </message>
    <message>
        <source>A film of the run&apos;s tab, its nodes as chapters. Fields a secret was typed into are covered in every screenshot and frame.</source>
        <translation>录下运行所在的标签页，节点即章节。输入过机密的输入框在每张截图和每一帧里都会被遮住。</translation>
    </message>
    <message>
        <source> MB</source>
        <translation> MB</translation>
    </message>
    <message>
        <source>Traces and videos take at most:</source>
        <translation>执行过程和视频最多占用：</translation>
    </message>
    <message>
        <source>All runs&apos; traces and videos together; the oldest are deleted first (their runs stay).</source>
        <translation>所有运行的执行过程和视频合计；超出时先删最旧的（运行记录保留）。</translation>
    </message>
    <message>
        <source>Not saved: {reason}</source>
        <translation>没有保存：{reason}</translation>
    </message>
</context>
<context>
    <name>ValidationList</name>
    <message>
        <source>No problems.</source>
        <translation>没有问题。</translation>
    </message>
</context>
<context>
    <name>VideoPlayer</name>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>The video cannot be played here: {reason}</source>
        <translation>这里无法播放视频：{reason}</translation>
    </message>
</context>
<context>
    <name>WelcomeDialog</name>
    <message>
        <source>Welcome to BrowserPilot</source>
        <translation>欢迎使用 BrowserPilot</translation>
    </message>
    <message>
        <source>One shared browser for you and your AI agents: environments keep their own logins, workflows replay what you or an agent did, and every run is recorded.</source>
        <translation>你和 AI Agent 共用的浏览器：每套环境保存自己的登录，工作流重放你或 Agent 做过的操作，每次运行都有记录。</translation>
    </message>
    <message>
        <source>Your data folder</source>
        <translation>你的数据文件夹</translation>
    </message>
    <message>
        <source>Open Folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Environments, workflows, runs and settings are kept here. Start with --data-dir or BROWSERPILOT_HOME to use another folder.</source>
        <translation>环境、工作流、运行记录和设置都保存在这里。启动时加 --data-dir 或设置 BROWSERPILOT_HOME 可以换一个文件夹。</translation>
    </message>
    <message>
        <source>Connect an AI agent (MCP)</source>
        <translation>连接 AI Agent（MCP）</translation>
    </message>
    <message>
        <source>Paste one of these into your agent&apos;s configuration. The HTTP ones reach this app while it runs; the stdio one starts it when needed.</source>
        <translation>把其中一个粘贴到 Agent 的配置里。HTTP 方式在应用运行时连到它；stdio 方式在需要时启动它。</translation>
    </message>
    <message>
        <source>Read the &lt;a href=&quot;{url}&quot;&gt;README&lt;/a&gt; for the environments, workflows, the command line and every MCP tool.</source>
        <translation>阅读 &lt;a href=&quot;{url}&quot;&gt;README&lt;/a&gt;，了解环境、工作流、命令行和每个 MCP 工具。</translation>
    </message>
    <message>
        <source>The README (in the source distribution) describes the environments, workflows, the command line and every MCP tool.</source>
        <translation>源码包里的 README 介绍了环境、工作流、命令行和每个 MCP 工具。</translation>
    </message>
    <message>
        <source>Get Started</source>
        <translation>开始使用</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copied the configuration for {client}.</source>
        <translation>已复制 {client} 的配置。</translation>
    </message>
</context>
<context>
    <name>WorkflowTableModel</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Last run</source>
        <translation>上次运行</translation>
    </message>
    <message>
        <source>never run</source>
        <translation>从未运行</translation>
    </message>
    <message>
        <source>{id}: {status}, started {time}</source>
        <translation>{id}：{status}，开始于 {time}</translation>
    </message>
</context>
<context>
    <name>WorkflowsPanel</name>
    <message>
        <source>&amp;Import…</source>
        <translation>导入(&amp;I)…</translation>
    </message>
    <message>
        <source>E&amp;xport…</source>
        <translation>导出(&amp;X)…</translation>
    </message>
    <message>
        <source>&amp;Run…</source>
        <translation>运行(&amp;R)…</translation>
    </message>
    <message>
        <source>&amp;Batch…</source>
        <translation>批量运行(&amp;B)…</translation>
    </message>
    <message>
        <source>&amp;Schedule…</source>
        <translation>定时(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>删除(&amp;D)…</translation>
    </message>
    <message>
        <source>No workflows yet</source>
        <translation>还没有工作流</translation>
    </message>
    <message>
        <source>Import a workflow file, record one by doing the task once in an environment window, or ask an agent to do it and save what it did as a workflow.</source>
        <translation>导入一个工作流文件；或在环境窗口里把任务做一遍，录制成工作流；或者交给 Agent 去做，把它做过的保存为工作流。</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Record</source>
        <translation>录制</translation>
    </message>
    <message>
        <source>Ask an Agent</source>
        <translation>交给 Agent</translation>
    </message>
    <message>
        <source>Drop workflow files (.json, or Chrome DevTools Recorder recordings) here to import them.</source>
        <translation>把工作流文件（.json，或 Chrome DevTools Recorder 的录制）拖到这里导入。</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>Cannot list workflows: {error}</source>
        <translation>列不出工作流：{error}</translation>
    </message>
    <message>
        <source>No workflows yet: record one, import one or make a new one first</source>
        <translation>还没有工作流：先录制、导入或新建一个</translation>
    </message>
    <message>
        <source>Select a workflow in the Workflows panel first</source>
        <translation>先在工作流面板里选中一个工作流</translation>
    </message>
    <message>
        <source>Import Workflows</source>
        <translation>导入工作流</translation>
    </message>
    <message>
        <source>Workflows and Chrome Recorder recordings (*.json);;All files (*)</source>
        <translation>工作流和 Chrome Recorder 录制 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Imported “{workflow}” from {file} (it replaced the saved workflow of that name).</source>
        <translation>已从 {file} 导入“{workflow}”（替换了同名的已保存工作流）。</translation>
    </message>
    <message>
        <source>Imported “{workflow}” from {file}.</source>
        <translation>已从 {file} 导入“{workflow}”。</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more (see the details).</source>
        <translation>
            <numerusform>……还有 %n 个（见详情）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Import Workflow</source>
        <translation>导入工作流</translation>
    </message>
    <message numerus="yes">
        <source>It loaded with %n warning(s): parts that look wrong and may fail when a run reaches them.</source>
        <translation>
            <numerusform>载入时有 %n 个警告：有些部分看起来不对，运行到那里时可能失败。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The recording was converted with %n note(s).</source>
        <translation>
            <numerusform>录制已转换，有 %n 条说明。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>“{file}” was not imported: it has %n problems.</source>
        <translation>
            <numerusform>“{file}”没有导入：它有 %n 个问题。</numerusform>
        </translation>
    </message>
    <message>
        <source>“{file}” was not imported: {problem}</source>
        <translation>“{file}”没有导入：{problem}</translation>
    </message>
    <message>
        <source>Nothing was saved.</source>
        <translation>什么都没有保存。</translation>
    </message>
    <message>
        <source>Export “{name}”</source>
        <translation>导出“{name}”</translation>
    </message>
    <message>
        <source>Workflow (*.json);;All files (*)</source>
        <translation>工作流 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Exported to {path}</source>
        <translation>已导出到 {path}</translation>
    </message>
    <message>
        <source>Export Workflow</source>
        <translation>导出工作流</translation>
    </message>
    <message>
        <source>Delete Workflow</source>
        <translation>删除工作流</translation>
    </message>
    <message>
        <source>Delete the workflow “{name}”?

Its past runs stay in the Runs panel. Export it first if you may want it back.</source>
        <translation>删除工作流“{name}”？

它以前的运行仍保留在“运行记录”面板里。以后可能还要用的话，先导出。</translation>
    </message>
    <message>
        <source>Deleted “{name}”.</source>
        <translation>已删除“{name}”。</translation>
    </message>
    <message>
        <source>Run Workflow</source>
        <translation>运行工作流</translation>
    </message>
    <message>
        <source>“{name}” cannot run: it is not valid.</source>
        <translation>“{name}”无法运行：它不合法。</translation>
    </message>
    <message>
        <source>workers at {broker}</source>
        <translation>{broker} 上的工作机</translation>
    </message>
    <message>
        <source>The run of “{name}” was cancelled before it started.</source>
        <translation>“{name}”在开始前就被取消了。</translation>
    </message>
    <message>
        <source>“{name}” could not run: {error}</source>
        <translation>“{name}”没能运行：{error}</translation>
    </message>
    <message>
        <source>“{name}” finished: ok, in {duration}.</source>
        <translation>“{name}”运行完成：成功，耗时 {duration}。</translation>
    </message>
    <message>
        <source>Outputs: {keys}.</source>
        <translation>输出：{keys}。</translation>
    </message>
    <message>
        <source>“{name}” {status} at node “{node}” after {duration}.</source>
        <translation>“{name}”{status}：在节点“{node}”，耗时 {duration}。</translation>
    </message>
    <message>
        <source>“{name}” {status} after {duration}.</source>
        <translation>“{name}”{status}，耗时 {duration}。</translation>
    </message>
    <message>
        <source>Last run: {result}</source>
        <translation>上次运行：{result}</translation>
    </message>
    <message>
        <source>Run Finished</source>
        <translation>运行完成</translation>
    </message>
    <message>
        <source>Run Not Finished</source>
        <translation>运行没有完成</translation>
    </message>
    <message>
        <source>The batch of “{name}” was cancelled: {done} of {total} rows ran, {ok} ok.</source>
        <translation>批量运行“{name}”已取消：运行了 {done}/{total} 行，成功 {ok} 行。</translation>
    </message>
    <message>
        <source>Batch Cancelled</source>
        <translation>批量运行已取消</translation>
    </message>
    <message>
        <source>Batch Run</source>
        <translation>批量运行</translation>
    </message>
    <message>
        <source>The batch of “{name}” could not run: {error}</source>
        <translation>批量运行“{name}”没能运行：{error}</translation>
    </message>
    <message>
        <source>Batch of “{name}” done: {ok} of {total} rows ok, {failed} not ok.</source>
        <translation>批量运行“{name}”完成：{total} 行中成功 {ok} 行，失败 {failed} 行。</translation>
    </message>
    <message>
        <source>Batch of “{name}” done: {ok} of {total} rows ok.</source>
        <translation>批量运行“{name}”完成：{total} 行中成功 {ok} 行。</translation>
    </message>
    <message>
        <source>Row {n}: {status}</source>
        <translation>第 {n} 行：{status}</translation>
    </message>
    <message>
        <source>Batch Finished</source>
        <translation>批量运行完成</translation>
    </message>
    <message>
        <source>Show in Runs</source>
        <translation>在运行记录中查看</translation>
    </message>
</context>
<context>
    <name>_Card</name>
    <message>
        <source>Take over</source>
        <translation>接管</translation>
    </message>
    <message>
        <source>Stop BrowserPilot here and use this page yourself</source>
        <translation>让 BrowserPilot 停下，你自己来用这个页面</translation>
    </message>
</context>
<context>
    <name>owner</name>
    <message>
        <source>every second</source>
        <translation>每秒</translation>
    </message>
    <message>
        <source>every {n} seconds</source>
        <translation>每 {n} 秒</translation>
    </message>
    <message>
        <source>every minute</source>
        <translation>每分钟</translation>
    </message>
    <message>
        <source>every {n} minutes</source>
        <translation>每 {n} 分钟</translation>
    </message>
    <message>
        <source>every hour</source>
        <translation>每小时</translation>
    </message>
    <message>
        <source>every {n} hours</source>
        <translation>每 {n} 小时</translation>
    </message>
    <message>
        <source>every day</source>
        <translation>每天</translation>
    </message>
    <message>
        <source>every {n} days</source>
        <translation>每 {n} 天</translation>
    </message>
    <message>
        <source>every day at {time}</source>
        <translation>每天 {time}</translation>
    </message>
    <message>
        <source>every weekday at {time}</source>
        <translation>每个工作日 {time}</translation>
    </message>
    <message>
        <source>once, {when}</source>
        <translation>仅一次，{when}</translation>
    </message>
    <message>
        <source>cron {expr}</source>
        <translation>Cron {expr}</translation>
    </message>
    <message>
        <source>today {time}</source>
        <translation>今天 {time}</translation>
    </message>
    <message>
        <source>tomorrow {time}</source>
        <translation>明天 {time}</translation>
    </message>
    <message>
        <source>{day} {time}</source>
        <translation>{day} {time}</translation>
    </message>
    <message>
        <source>{date} {time}</source>
        <translation>{date} {time}</translation>
    </message>
    <message>
        <source>{when} — no next time</source>
        <translation>{when} — 没有下次</translation>
    </message>
    <message>
        <source>{when} — next {next}</source>
        <translation>{when} — 下次 {next}</translation>
    </message>
</context>
</TS>
