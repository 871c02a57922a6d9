// The service worker (served at /sw.js, scope /): shows a "your turn" web push message
// (services/notifier/push.py sends {title, url, tag}) and opens its table when clicked.

self.addEventListener("push", (event) => {
  const data = event.data ? event.data.json() : {};
  event.waitUntil(
    self.registration.showNotification(data.title || "Your turn", {
      body: "Open the table",
      tag: data.tag,
      data: { url: data.url || "/" },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(self.clients.openWindow(event.notification.data.url));
});
