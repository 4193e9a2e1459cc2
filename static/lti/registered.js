// Dynamic registration: tell the LMS (our opener or parent frame) that we are done.
(window.opener || window.parent).postMessage({ subject: "org.imsglobal.lti.close" }, "*");
