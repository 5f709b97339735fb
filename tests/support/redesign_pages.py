"""Pages shaped like real applications' (shared by tests/integration/test_heal_redesigns.py and the recorder's X
tests)."""

# An admin index: each app a table whose caption links to the app and whose rows link to its models; the app's
# name and its only model's name are the same word.
ADMIN_INDEX = """<div id="container"><div id="content" class="colMS"><h1>Site administration</h1>
<div id="content-main">
 <div class="app-auth module"><table><caption><a href="/admin/auth/" class="section"
   title="Models in the Authentication application">Authentication</a></caption>
  <tr class="model-user"><th scope="row"><a href="/admin/auth/user/">Users</a></th>
   <td><a href="/admin/auth/user/add/" class="addlink">Add</a></td></tr></table></div>
 <div class="app-events module"><table><caption><a href="/admin/events/" class="section"
   title="Models in the Events application">Events</a></caption>
  <tr class="model-event"><th scope="row"><a href="/admin/events/event/">Events</a></th>
   <td><a href="/admin/events/event/add/" class="addlink">Add</a></td></tr></table></div>
</div>
<div id="content-related"><div class="module" id="recent-actions-module"><h2>Recent actions</h2>RECENT</div></div>
</div></div>"""
