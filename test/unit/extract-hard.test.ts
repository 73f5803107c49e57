// Hard cases of our own beyond the phrase table (extract-languages.test.ts): identity-provider
// link shapes, one-time links, bulk mail, transactional look-alikes ("Confirm appointment",
// "Confirm payment", a sign-in link in a welcome mail) and code layouts. None comes from the corpus.
import test from 'ava';
import { extract } from '../../src/extract/index.js';

const T = (w: string): string => `https://click.esp.example/ls/click?upn=${Buffer.from(w + 'xx').toString('base64').replace(/=/g, '')}Qw8Zk2`;
type Input = { subject?: string; text?: string; html?: string };
const cases: [string, Input, string | null, string | null][] = [
  ['ja code+link text', { subject: 'ログインのご案内', text: 'ログインコード：482913\n\nまたは、以下のリンクからログインしてください。\nhttps://id.shop.example/login/link/Hk29dLq8ZpW3xNc7\n\n本メールに心当たりのない場合は破棄してください。' }, '482913', 'https://id.shop.example/login/link/Hk29dLq8ZpW3xNc7'],
  ['marketing activate offer', { subject: 'Your weekend deal is here', html: `<p>Activate your 20% discount before Sunday!</p><a href="${T('offer')}" style="background:#f00;padding:12px 20px">Activate offer</a><p><a href="${T('prefs')}">Preferences</a> <a href="${T('unsub')}">Unsubscribe</a></p>` }, null, null],
  ['password changed text', { subject: 'Your password was changed', text: 'Hi,\n\nThe password for your account was changed on 3 May 2025.\n\nIf you did not make this change, reset your password right away:\nhttps://acct.example/reset?t=Zx8Kq2Lm9Pw4Rt7Yv1\n\nThanks' }, null, null],
  ['email changed notice', { subject: 'Your email address was changed', html: '<p>Your email address was changed to j***@example.test.</p><p>If you didn\'t make this change, <a href="https://acct.example/recover?t=Zx8Kq2Lm9Pw4Rt7Yv1">recover your account</a>.</p>' }, null, null],
  ['2fa enabled', { subject: 'Two-factor authentication enabled', text: 'Two-factor authentication is now on for your account. Keep your recovery codes safe.\nManage security: https://acct.example/settings/security?s=Zx8Kq2Lm9Pw4' }, null, null],
  ['welcome verified', { subject: 'Welcome! Your email is verified', html: `<p>Thanks for verifying your email.</p><a href="${T('start')}" style="background:#00f;padding:10px">Start exploring</a><p><a href="${T('unsub')}">Unsubscribe</a></p>` }, null, null],
  ['markdown text', { subject: 'Verify your email', text: 'Hi!\n\n[Verify my email](https://app.example/v/Ab12Cd34Ef56Gh78)\n\n[Help](https://app.example/help)' }, null, 'https://app.example/v/Ab12Cd34Ef56Gh78'],
  ['guillemets nbsp', { subject: 'Confirmez votre adresse', text: 'Pour confirmer votre adresse, ouvrez ce lien : « https://compte.example/c?t=Ab12Cd34Ef56Gh78 ».' }, null, 'https://compte.example/c?t=Ab12Cd34Ef56Gh78'],
  ['mailgun plain http tracked', { subject: 'Please confirm your subscription', html: '<p>Click to confirm you want to receive our newsletter.</p><a href="http://email.mg.news.example/c/eJwNyEEKgCAQAMC3-Ab29mJrxmPk32zsAYDiXm1Bbh0H8Q">Yes, subscribe me</a> <a href="http://email.mg.news.example/c/eJwNyEEKgCAQAMC3-Ab29mJrxmPk3unsub">Unsubscribe</a>' }, null, 'http://email.mg.news.example/c/eJwNyEEKgCAQAMC3-Ab29mJrxmPk32zsAYDiXm1Bbh0H8Q'],
  ['deny vs approve text', { subject: 'Approve sign-in?', text: 'Someone is trying to sign in from Chrome.\n\nApprove: https://id.example/a?r=Ab12Cd34Ef56Gh78\nDeny: https://id.example/d?r=Zz12Cd34Ef56Gh78' }, null, 'https://id.example/a?r=Ab12Cd34Ef56Gh78'],
  ['receipt negative', { subject: 'Receipt for order 482913', html: `<p>Thanks for your order 482913. Total $49.00.</p><a href="${T('track')}" style="background:#000;padding:10px">Track order</a><a href="${T('view')}">View receipt</a>` }, null, null],
  ['code among numbers multipart', { subject: 'Verification', text: 'Invoice 2025-0042 for 3 items. Ship to Suite 210, 4100 Main St, Austin TX 78701. Call 512-555-0134.\nYour verification code is 390 117.\nRecord #448213.' }, '390117', null],
  ['code hyphen text', { subject: 'Your code', text: 'Code: 482-913' }, '482913', null],
  ['nbsp html', { subject: 'Sicherheitscode', html: '<p>Ihr Sicherheitscode:</p><p style="font-size:24px">482&nbsp;913</p><p>Kundennummer 448213</p>' }, '482913', null],
  ['sign-in only link, subject neutral, body says log in', { subject: 'Acme', html: '<p>Click the button below to log in to Acme. The link expires in 15 minutes and can be used once.</p><a href="https://acme.example/e/Hk29dLq8ZpW3xNc7Qa" style="background:#000;padding:10px">Log in to Acme</a>' }, null, 'https://acme.example/e/Hk29dLq8ZpW3xNc7Qa'],
  ['statement login negative', { subject: 'Your statement is ready', html: `<p>Your May statement is ready. Log in to view it.</p><a href="${T('login')}" style="background:#000;padding:10px">Log in</a><a href="${T('unsub')}">Unsubscribe</a>` }, null, null],
  // The corpus contract (issue 38): accepting an invitation to a workspace is a verification link.
  ['invite to team', { subject: 'Ana invited you to join Acme', html: '<p>Ana invited you to the Acme workspace.</p><a href="https://acme.example/invite/accept?t=Hk29dLq8ZpW3xNc7Qa" style="background:#000;padding:10px">Accept invitation</a>' }, null, 'https://acme.example/invite/accept?t=Hk29dLq8ZpW3xNc7Qa'],
  ['thai text code', { subject: 'รหัส OTP', text: 'รหัส OTP ของคุณคือ 482913 (รหัสอ้างอิง: ABCD) รหัสนี้จะหมดอายุใน 5 นาที' }, '482913', null],
  ['arabic code', { subject: 'رمز التحقق', text: 'رمز التحقق الخاص بك هو 482913. لا تشاركه مع أحد.' }, '482913', null],
  ['korean link', { subject: '이메일 인증', html: '<p>아래 버튼을 눌러 이메일 인증을 완료해 주세요.</p><a href="https://kr.example/auth/mail?k=Hk29dLq8ZpW3xNc7Qa">이메일 인증하기</a>' }, null, 'https://kr.example/auth/mail?k=Hk29dLq8ZpW3xNc7Qa'],
  ['reset in parentheses plain english', { subject: 'Password reset', text: 'We got a request to reset your password. Choose a new one here (https://acct.example/pw?t=Ab12Cd34Ef56Gh78).\nIgnore this email if you didn\'t ask.' }, null, 'https://acct.example/pw?t=Ab12Cd34Ef56Gh78'],
  ['okta path token', { subject: 'Activate your account', text: 'Hello Ana,\n\nYour administrator created an account for you.\nhttps://acme.okta.example/welcome/drpFzTiBvdP5ebCyhjWL\n' }, null, 'https://acme.okta.example/welcome/drpFzTiBvdP5ebCyhjWL'],
  ['meeting passcode', { subject: 'Invitation: Planning', text: 'Join the meeting: https://meet.example/j/8451234567?pwd=abc\nMeeting ID: 845 123 4567\nPasscode: 482913\nDial-in PIN: 5521' }, null, null],
  ['clinic appointment', { subject: 'Please confirm your appointment', html: '<p>Dear Sam, please confirm your appointment with Dr. Lee on 12 May at 10:30, Room 204.</p><a href="https://clinic.example/appointments/confirm?t=Ab12Cd34Ef56Gh78" style="background:#0a0;padding:10px">Confirm appointment</a><p>Call 555-0199 to reschedule.</p>' }, null, null],
  ['hotel booking confirm', { subject: 'Confirm your reservation', text: 'Your reservation 482913 at Hotel Sol is on hold.\nConfirm reservation: https://hotel.example/r/confirm/Ab12Cd34Ef56Gh78\nTotal: 420 EUR' }, null, null],
  ['welcome login verified_2025', { subject: 'Your email is verified', html: '<p>All set! Your email address is confirmed.</p><a href="https://app.example/login?next=%2Fdashboard&ref=verified_2025">Sign in</a>' }, null, null],
  ['auth0 ticket #', { subject: 'Verify your email', html: '<p>Thanks for signing up! Please verify your email.</p><a href="https://acme.auth0.example/u/email-verification?ticket=Zk29fJq0LmP4xR7tW1yBcdE#">VERIFY YOUR ACCOUNT</a>' }, null, 'https://acme.auth0.example/u/email-verification?ticket=Zk29fJq0LmP4xR7tW1yBcdE#'],
  ['keycloak', { subject: 'Verify email', text: 'Someone has created a Acme account with this email address. If this was you, click the link below to verify your email address\n\nhttps://kc.example/realms/acme/login-actions/action-token?key=eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjE3MH0.abc-DEF_123&client_id=account\n\nThis link will expire within 5 minutes.\n\nIf you didn\'t create this account, just ignore this message.' }, null, 'https://kc.example/realms/acme/login-actions/action-token?key=eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjE3MH0.abc-DEF_123&client_id=account'],
  ['kratos code+link', { subject: 'Please verify your email address', text: 'Hi, please verify your account by entering the following code:\n\n582913\n\nor clicking the following link:\n\nhttps://auth.example/self-service/verification?code=582913&flow=4f2b-91ac' }, '582913', 'https://auth.example/self-service/verification?code=582913&flow=4f2b-91ac'],
  ['cognito link only number', { subject: 'Your verification link', text: 'Please click the link below to verify your email address. https://acme.auth.us-east-1.amazoncognito.example/confirmUser?client_id=3n4b5urk1ft4fl3mg5e62d9ado&user_name=abc&confirmation_code=482913' }, null, 'https://acme.auth.us-east-1.amazoncognito.example/confirmUser?client_id=3n4b5urk1ft4fl3mg5e62d9ado&user_name=abc&confirmation_code=482913'],
  ['3ds payment confirm', { subject: 'Confirm your payment of $49.00', html: '<p>Confirm your payment to Acme Store of $49.00 with card ending 4821.</p><a href="https://bank.example/3ds/confirm?t=Ab12Cd34Ef56Gh78">Confirm payment</a>' }, null, null],
  ['confirm delivery', { subject: 'Your parcel is on its way', html: '<p>Parcel 1Z999AA10123456784 arrives tomorrow.</p><a href="https://ship.example/t/Ab12Cd34Ef56Gh78" style="background:#000;padding:10px">Confirm delivery address</a>' }, null, null],
  ['code bracket', { subject: 'Verification', text: 'Your verification code is [482913]. Do not share it.' }, '482913', null],
  ['code thin space', { subject: 'Code', text: 'Your code: 482\u2009913' }, '482913', null],
  ['code spans', { subject: 'Your one-time code', html: '<p>Your one-time code:</p><p><span>4</span><span>8</span><span>2</span><span>9</span><span>1</span><span>3</span></p>' }, '482913', null],
  ['code letter-spaced css', { subject: 'Security code', html: '<p>Security code</p><div style="letter-spacing:12px;font-size:32px">482913</div><p>Acme, 1200 Market St, San Francisco, CA 94105</p>' }, '482913', null],
  ['code with G- prefix', { subject: 'G-482913 is your code', text: 'G-482913 is your Google verification code.' }, '482913', null],
  ['code leading zero', { subject: 'Code', text: 'Your login code is 042006.' }, '042006', null],
  ['zoom meeting passcode', { subject: 'Meeting invitation', html: '<p>Join Zoom Meeting</p><a href="https://zoom.example/j/84512345678?pwd=Ab12Cd34Ef56Gh78">Join meeting</a><p>Meeting ID: 845 1234 5678<br>Passcode: 482913</p>' }, null, null],
  ['customer code is an identifier, not the code', { subject: 'Your sign-in code', text: 'Customer code: C-40917\n\nYour sign-in code is 582031. It expires in 10 minutes.' }, '582031', null],
  ['supplier code alone is no code', { subject: 'Willkommen im Lieferantenportal', text: 'Ihr Konto wurde angelegt.\nLieferantencode: 77310\nBei Fragen wenden Sie sich an den Einkauf.' }, null, null],
  ['bulk mail whose subject sells a discount', { subject: 'This weekend only: your code for 15% off', html: '<p>Your code:</p><p style="font-size:28px;letter-spacing:6px"><b>730514</b></p><p>Enter it at checkout.</p><a href="https://tea.example/shop?utm_source=mail">Shop teas</a><a href="https://tea.example/email/unsubscribe?u=Ab12Cd34Ef56">Unsubscribe</a>' }, null, null],
  ['bulk mail that sells a discount for verifying keeps its code', { subject: 'Verify your email and get 10% off', html: '<p>Your verification code is <b>730514</b>. Enter it to confirm your email address.</p><a href="https://tea.example/email/unsubscribe?u=Ab12Cd34Ef56">Unsubscribe</a>' }, '730514', null],
  ['booking code and a manage-booking button, in Italian', { subject: 'Conferma della prenotazione', html: '<p>La tua prenotazione è confermata.</p><p>Codice di prenotazione: 604118</p><a href="https://traghetti.example/prenotazione/gestisci?ref=604118&t=Ab12Cd34Ef56Gh78" style="background:#036;padding:12px">Gestisci prenotazione</a>' }, null, null],
  ['hard-wrapped "if you didn\'t" above a list of links is a safety exit', { subject: 'Your password was changed', text: 'Your password was changed on May 2 from Firefox on Linux.\n\nIf you did not make this change, reset your password now and review the devices\nthat can reach your account:\n  Reset password: https://files.example/account/recover?t=Ab12Cd34Ef56Gh78\n  Devices: https://files.example/account/devices\n' }, null, null],
  ['an invitation with reminder settings asks by itself', { subject: 'Rua Lopes invited you to join Harbor Crew', html: '<p>Rua Lopes invited you to join Harbor Crew, the team that runs the dock schedule.</p><a href="https://e.crew-mail.example/e/c/eyJocmVmIjoiaHR0cHM6Ly9jcmV3LmV4YW1wbGUvaW52aXRlcy9BYjEyQ2QzNC9hY2NlcHQifQ/9f8e7d6c5b4a39281706f5e4d3c2b1a0" style="background:#0a5;padding:12px">Join the team</a><p><a href="https://e.crew-mail.example/e/c/eyJocmVmIjoiaHR0cHM6Ly9jcmV3LmV4YW1wbGUvc2V0dGluZ3MvZW1haWwvdW5zdWJzY3JpYmU_a2luZD1pbnZpdGVfcmVtaW5kZXJzIn0/0a1b2c3d4e5f60718293a4b5c6d7e8f9">Unsubscribe from invitation reminders</a></p>' }, null, 'https://e.crew-mail.example/e/c/eyJocmVmIjoiaHR0cHM6Ly9jcmV3LmV4YW1wbGUvaW52aXRlcy9BYjEyQ2QzNC9hY2NlcHQifQ/9f8e7d6c5b4a39281706f5e4d3c2b1a0'],
  ['an unlock link restores access as a reset does', { subject: 'Unlock instructions', html: '<p>Hello sam@example.test!</p><p>Your Tools account was locked after too many failed sign-in attempts.</p><p>Use the link below to unlock it:</p><p><a href="https://tools.example/users/unlock?unlock_token=Ab12Cd34Ef56Gh78">Unlock my account</a></p>' }, null, 'https://tools.example/users/unlock?unlock_token=Ab12Cd34Ef56Gh78'],
  ['an invitation\'s "Join now" in another language joins the place', { subject: 'Ana convidou-o para a equipa Oceânica', html: '<p>Ana Costa convidou-o para a equipa Oceânica no Falatório.</p><p><a href="https://falatorio.example/join/invite/Ab12Cd34Ef56Gh78" style="background:#06c;padding:12px">Aderir agora</a></p><p>Este convite expira dentro de 30 dias.</p>' }, null, 'https://falatorio.example/join/invite/Ab12Cd34Ef56Gh78'],
  ['the sentence before names the button and what it does', { subject: 'An account was created for you', html: '<p>Your administrator created a Ledgerly account for you.</p><p>Press Get started below to set your password.</p><p><a href="https://ledgerly.example/onboard?t=Ab12Cd34Ef56Gh78" style="background:#222;padding:12px">Get started</a></p>' }, null, 'https://ledgerly.example/onboard?t=Ab12Cd34Ef56Gh78'],
  ['a welcome that names its dashboard button has no link', { subject: 'Welcome to Ledgerly', html: '<p>Your email is confirmed. Click Go to dashboard to see your projects.</p><p><a href="https://ledgerly.example/dashboard?ref=Ab12Cd34Ef56Gh78" style="background:#222;padding:12px">Go to dashboard</a></p>' }, null, null],
  ['a code in Arabic-Indic digits is read as ASCII digits', { subject: 'رمز التحقق', text: 'رمز التحقق الخاص بك هو ٧٣٥٠٩٢. صالح لمدة ٥ دقائق.' }, '735092', null],
  ['a code in Persian digits is read as ASCII digits', { subject: 'کد تأیید', text: 'کد تأیید شما: ۴۸۲۹۱۳' }, '482913', null],
  ['a reply\'s own reset link, not the expired one it quotes', { subject: 'RE: My reset link expired', text: 'Hi Ines,\n\nThe link you got was tied to the old domain. Here is a new one I just made for you:\n\nhttps://cloud.example/password/reset/NewAb12Cd34Ef56Gh78Ij90\n\nKind regards,\nSupport\n\n-----Original Message-----\n> Hello, I asked to reset my password and got this link, but it says expired:\n> https://cloud.example/password/reset/OldZz98Yy76Xx54Ww32Vv10\n' }, null, 'https://cloud.example/password/reset/NewAb12Cd34Ef56Gh78Ij90'],
  ['a safety exit with its own link above the reset button is not the button\'s lead-in', { subject: 'Set a new password', html: '<p>We received a request to change your password.</p><p>If it was not you, <a href="https://shop.example/account/security?src=reset">secure your account</a>.</p><p><a href="https://shop.example/account/new-password?token=Ab12Cd34Ef56Gh78" style="background:#036;padding:12px">Set new password</a></p>' }, null, 'https://shop.example/account/new-password?token=Ab12Cd34Ef56Gh78'],
  ['a Hebrew team invitation', { subject: 'דנה הזמינה אותך להצטרף לצוות', html: '<p dir="rtl">דנה הזמינה אותך להצטרף לצוות סטודיו לבנט.</p><p><a href="https://app.example/join/Ab12Cd34Ef56Gh78" style="background:#063;padding:12px">הצטרפות לצוות</a></p>' }, null, 'https://app.example/join/Ab12Cd34Ef56Gh78'],
  ['a code the mail says no longer works is not the code', { subject: 'Your new code', text: 'You asked for another code, so 730514 no longer works.\n\nNew verification code: 482913\n' }, '482913', null],
  ['a code that works until it has expired is still the code', { subject: 'Your code', text: 'Enter 482913 before it has expired in 10 minutes.' }, '482913', null],
  ['a link marked as no longer working is not the link', { subject: 'Your new reset link', text: 'You asked for another password reset link, so the one we sent at 09:02 is switched off:\n\n  (no longer works) https://app.example/reset/OldAb12Cd34Ef56Gh78\n\nUse this link instead. It works for 30 minutes:\n\n  https://app.example/reset/NewZz98Yy76Xx54Ww32\n' }, null, 'https://app.example/reset/NewZz98Yy76Xx54Ww32'],
  ['a ticket\'s "Verify authenticity" is not a verification link', { subject: 'Your tickets for Friday', html: '<p>Your 2 tickets for the concert on Friday, 20:00.</p><p><a href="https://tickets.hall.example/authenticity?barcode=883048217395&amp;t=Ab12Cd34Ef56Gh78" style="background:#000;padding:10px">Verify ticket authenticity</a></p>' }, null, null],
  ['a login page offered instead of the code is no sign-in link', { subject: 'Your login code', html: '<p>Your login code is <b>482913</b>. It expires in 15 minutes.</p><p><a href="https://auth.app.example/self-service/login/browser?method=password&amp;return_to=%2Ftrips">Sign in with password instead</a></p>' }, '482913', null],
  ['a code with a capital prefix alone on its line under a code word', { subject: 'Confirm your email', text: 'Here is your confirmation code:\n\nQX-730514\n\nType it on the sign-up screen. Project key: proj-7731' }, '730514', null],
  ['newsletter promo code', { subject: 'Spring sale', html: '<p>Use promo code 482913 for 20% off.</p><a href="https://shop.example/sale?u=Ab12Cd34Ef56Gh78">Shop now</a><a href="https://shop.example/unsubscribe?u=Ab12Cd34Ef56">Unsubscribe</a>' }, null, null],
  ['new sign-in alert with a secure-your-account link', { subject: 'New sign-in from Chrome', text: 'We noticed a new sign-in to your account from Chrome on Mac at 14:32.\nIf this was you, you can ignore this email.\nIf not, secure your account: https://acct.example/secure?t=Ab12Cd34Ef56Gh78' }, null, null],
  ['subject-only code split', { subject: 'Your code is 482 913', text: 'Use the code from the subject line.' }, '482913', null],
  ['double opt in mailchimp', { subject: 'Please Confirm Subscription', html: '<h2>Please Confirm Subscription</h2><a href="https://acme.us1.list-manage.example/subscribe/confirm?u=8a7b6c5d4e3f2a1b0c9d8e7f6&id=1a2b3c4d5e&e=9f8e7d6c5b">Yes, subscribe me to this list.</a><p>If you received this email by mistake, simply delete it.</p>' }, null, 'https://acme.us1.list-manage.example/subscribe/confirm?u=8a7b6c5d4e3f2a1b0c9d8e7f6&id=1a2b3c4d5e&e=9f8e7d6c5b'],
  ['change email confirm', { subject: 'Confirm your new email address', html: '<p>You asked to change your email to new@example.test.</p><a href="https://app.example/email/change/confirm?t=Ab12Cd34Ef56Gh78">Confirm new email</a><p>Didn\'t ask? <a href="https://app.example/email/change/cancel?t=Ab12Cd34Ef56Gh78">Cancel this change</a></p>' }, null, 'https://app.example/email/change/confirm?t=Ab12Cd34Ef56Gh78'],
  ['plain url after colon alone', { subject: 'Activate your account', text: 'Welcome to Acme!\n\nActivate your account:\n\nhttps://acme.example/a/Ab12Cd34Ef56Gh78\n\nSee you soon.' }, null, 'https://acme.example/a/Ab12Cd34Ef56Gh78'],
  ['text url followed by ).', { subject: 'Reset password', text: 'Reset your password (link: https://acme.example/reset/Ab12Cd34Ef56Gh78).' }, null, 'https://acme.example/reset/Ab12Cd34Ef56Gh78'],
  ['html code + view order links bank', { subject: 'Your one-time passcode', html: '<p>Your one-time passcode is <b>482913</b>. It expires in 10 minutes. Account ending in 4821.</p><p>Questions? Call 1-800-555-0199.</p>' }, '482913', null],  ['password reset done', { subject: 'Your password has been reset', html: `<p>Your password was reset successfully. You can now sign in with your new password.</p><a href="${T('signin')}" style="background:#000;padding:10px">Sign in</a><p>If you didn't do this, <a href="${T('help')}">contact support</a>.</p>` }, null, null],
  ['fr 2-digit groups', { subject: 'Votre code', text: 'Voici votre code à usage unique : 48 21 93\nIl expire dans 10 minutes.' }, '482193', null],
  ['es clave', { subject: 'Acceso', text: 'Tu clave de acceso es 4821. Pedido 4821-77 enviado.' }, '4821', null],
  ['ru subject only', { subject: 'Ваш код 4821', text: 'Введите код из темы письма.' }, '4821', null],
  ['ja html big span', { subject: 'ログイン認証', html: '<p>認証コード</p><p><span style="font-size:24px">482913</span></p><p>お問い合わせ番号：201993</p>' }, '482913', null],
  ['hi otp', { subject: 'OTP', text: 'आपका OTP 482913 है। इसे किसी के साथ साझा न करें।' }, '482913', null],
  ['zh order negative', { subject: '订单已发货', text: '您的订单号 482913 已发货，预计 3 天送达。客服电话 400-820-1234。' }, null, null],
  ['statement negative', { subject: 'Your statement is ready', text: 'Your statement for account ****4821 is ready.\nLog in to view it: https://bank.example/login\nCall 1-800-555-0199.' }, null, null],
  ['notice about code without code', { subject: 'Never share your code', html: '<p>We will never ask for your verification code. If someone asks for your code, <a href="https://bank.example/report?c=Ab12Cd34Ef56Gh78">report it</a>.</p>' }, null, null],
  ['reset link with expiry', { subject: 'Password reset request', html: '<p>Hi Ana, we received a request to reset your password.</p><p><a href="https://acme.example/r/Ab12Cd34Ef56Gh78Ij90" style="background:#06c;padding:10px 16px">Choose a new password</a></p><p>This link expires in 1 hour. If you didn\'t request this, you can safely ignore this email.</p>' }, null, 'https://acme.example/r/Ab12Cd34Ef56Gh78Ij90'],
  ['sendgrid verify', { subject: 'Verify your email', html: `<a href="${T('view')}">View in browser</a><p>Hi! Tap the button to verify your email.</p><a href="${T('verify')}" style="background:#06c;padding:10px 16px">Verify</a><p><a href="${T('help')}">Help</a> · <a href="${T('unsub')}">Unsubscribe</a> · <a href="${T('prefs')}">Preferences</a></p>` }, null, T('verify')],
  ['link only label "here"', { subject: 'Confirm your account', html: '<p>To confirm your account, click <a href="https://acme.example/c/Ab12Cd34Ef56Gh78Ij90">here</a>.</p>' }, null, 'https://acme.example/c/Ab12Cd34Ef56Gh78Ij90'],
  ['de code + link both', { subject: 'Dein Zugangscode', html: '<p>Dein Code lautet <b>4821</b>.</p><p>Oder melde dich direkt an: <a href="https://shop.example/login/l/Ab12Cd34Ef56Gh78Ij90">Einloggen</a></p><p><a href="https://shop.example/datenschutz">Datenschutz</a></p>' }, '4821', 'https://shop.example/login/l/Ab12Cd34Ef56Gh78Ij90'],
  ['approve sign-in no code', { subject: 'Is this you signing in?', html: '<p>Someone is trying to sign in to your account from Berlin.</p><a href="https://id.example/login/approve?r=Ab12Cd34Ef56Gh78" style="background:#0a0;padding:10px">Yes, it\'s me</a> <a href="https://id.example/login/deny?r=Ab12Cd34Ef56Gh78" style="background:#a00;padding:10px">No, block it</a>' }, null, 'https://id.example/login/approve?r=Ab12Cd34Ef56Gh78'],
  ['magic link tracked only anchor', { subject: 'Your magic link', html: `<p>Click below to sign in. This link works once and expires in 15 minutes.</p><a href="${T('magic')}">Sign in to Acme</a><p><a href="${T('help')}">Need help?</a></p>` }, null, T('magic')],
  ['code 5 digit among zip', { subject: 'Your Acme code', text: 'Acme Inc, 500 Market St, San Francisco, CA 94105\nYour code: 58213' }, '58213', null],
  ['pt-br code+link', { subject: 'Seu código de acesso', text: 'Olá!\n\nSeu código: 482913\n\nOu clique no link para entrar: https://app.example.br/entrar/Ab12Cd34Ef56Gh78\n\nCNPJ 12.345.678/0001-90' }, '482913', 'https://app.example.br/entrar/Ab12Cd34Ef56Gh78'],
  ['tr code', { subject: 'Doğrulama kodunuz', text: 'Doğrulama kodunuz: 482913. Kodu kimseyle paylaşmayın. Müşteri no: 771203' }, '482913', null],
  ['pl link text markdown', { subject: 'Potwierdź adres e-mail', text: 'Cześć!\n\n[Potwierdź adres](https://sklep.example/potwierdz/Ab12Cd34Ef56Gh78)\n\n[Regulamin](https://sklep.example/regulamin)' }, null, 'https://sklep.example/potwierdz/Ab12Cd34Ef56Gh78'],
  ['invite code negative', { subject: 'You are invited', text: 'Use invite code 482913 to join the beta. Referral code 771203.' }, null, null],
  ['or click continue', { subject: 'Your Acme code', html: `<p>Your code is <b>482913</b>.</p><p>Or click the button below:</p><a href="${T('go')}" style="background:#000;padding:10px">Continue</a><p><a href="${T('help')}">Help</a></p>` }, '482913', T('go')],
  ['code + open app negative', { subject: 'Your Acme code', html: `<p>Your code is <b>482913</b>.</p><a href="${T('app')}" style="background:#000;padding:10px">Open the Acme app</a><p><a href="${T('help')}">Help</a></p>` }, '482913', null],
  ['de oder klicken', { subject: 'Ihr Code', text: `Ihr Code: 482913\n\nOder klicken Sie hier: ${T('de')}\n` }, '482913', T('de')],
  ['ja または', { subject: '認証コード', text: `認証コード：482913\nまたは次のリンクをクリック：${T('ja')}\n` }, '482913', T('ja')],
  ['code + download app link w/ or', { subject: 'Your code', text: `Your code: 482913\nDon't have the app? Download it or visit ${T('dl')}\n` }, '482913', null],
  ['a plain negation before the link is no safety exit', { subject: 'Please verify your device', text: 'A sign in attempt requires further verification because we did not recognize your device. To complete the sign in, enter 482139 on the verification page or click https://code.example/device/confirm/Qz81kL2x.\n\nIf you did not attempt to sign in, reset your password at https://code.example/password_reset/Hk29dLq8ZpW3xNc7.' }, '482139', 'https://code.example/device/confirm/Qz81kL2x'],
  ['a conditional negation before the only link is a safety exit', { subject: 'Password changed', text: 'Your password was changed. If you did not do this, reset it now: https://code.example/password_reset/Hk29dLq8ZpW3xNc7' }, null, null],
  ['Japanese 本登録 names its object itself', { subject: '【Acme】本登録のご案内', text: 'Acmeをご利用いただきありがとうございます。\n以下のURLをクリックして本登録を完了してください。\nhttps://acme.example.jp/r/Hk29dLq8ZpW3xNc7\n※URLの有効期限は24時間です。' }, null, 'https://acme.example.jp/r/Hk29dLq8ZpW3xNc7'],
  ['Korean 활성화 button', { subject: '[Acme] 계정 활성화', html: '<p>아래 버튼을 눌러 활성화를 완료하세요.</p><a href="https://acme.example.kr/a/Hk29dLq8ZpW3xNc7">활성화하기</a>' }, null, 'https://acme.example.kr/a/Hk29dLq8ZpW3xNc7'],
  ['text open url to confirm', { subject: 'Welcome to Acme', text: 'Hi Ana,\n\nOpen https://acme.example/w/Hk29dLq8ZpW3xNc7 to confirm your account.\n\nAcme' }, null, 'https://acme.example/w/Hk29dLq8ZpW3xNc7'],
  ['html click here to verify', { subject: 'Welcome to Acme', html: '<p>Click <a href="https://acme.example/w/Hk29dLq8ZpW3xNc7">here</a> to verify your email address.</p>' }, null, 'https://acme.example/w/Hk29dLq8ZpW3xNc7'],
  ['html here if not you', { subject: 'New sign-in', html: '<p>Click <a href="https://acme.example/s/Hk29dLq8ZpW3xNc7">here</a> if this wasn\'t you.</p>' }, null, null],
  ['text visit url to unsubscribe', { subject: 'News', text: 'Visit https://acme.example/u/Hk29dLq8ZpW3xNc7 to unsubscribe from this list.' }, null, null],
  ['a safety exit the HTML refuses stays refused in the text part', { subject: 'New sign-in', html: '<p>New sign-in from Firefox.</p><p>Not you? <a href="https://acme.example/secure/Hk29dLq8ZpW3xNc7">Lock my account</a></p>', text: 'New sign-in from Firefox.\n\nPlease confirm your account:\nhttps://acme.example/secure/Hk29dLq8ZpW3xNc7\n' }, null, null],
  ['an image button without alt: the text part names the link', { subject: 'Welcome', html: '<p>Welcome to Acme.</p><a href="https://acme.example/v/Hk29dLq8ZpW3xNc7"><img src="https://acme.example/btn.png"></a>', text: 'Welcome to Acme.\n\nVerify your email address:\nhttps://acme.example/v/Hk29dLq8ZpW3xNc7\n' }, null, 'https://acme.example/v/Hk29dLq8ZpW3xNc7'],
  ['one-time link, plain words', { subject: 'Your Acme link', html: '<p>Here is the link you asked for.</p><a href="https://acme.example/l/Hk29dLq8ZpW3xNc7" style="background:#000;padding:10px">Continue to Acme</a><p>This link expires in 10 minutes and can only be used once.</p><p><a href="https://acme.example/help">Help</a></p>' }, null, 'https://acme.example/l/Hk29dLq8ZpW3xNc7'],
  ['offer expires marketing', { subject: 'Last chance', html: '<p>Our spring offer expires tonight!</p><a href="https://shop.example/o/Hk29dLq8ZpW3xNc7" style="background:#000;padding:10px">Shop the sale</a><p><a href="https://shop.example/unsubscribe?u=Ab12Cd34">Unsubscribe</a></p>' }, null, null],
];

for (const [name, input, otp, verification_link] of cases) {
  test(`extract - hard case: ${name}`, (t) => {
    t.deepEqual(extract(input), { otp, verification_link });
  });
}

/** Code layouts and code words in more languages: only the code is asserted here. */
const codes: [string, Input, string | null][] = [
  ['md bold 4', { subject: 'Code', text: 'Your code: **4821**' }, '4821'],
  ['1-2-3', { subject: 'Code', text: 'Your code: 4-8-2-9-1-3' }, '482913'],
  ['12 34 56', { subject: 'Code', text: 'Code de vérification : 48 29 13' }, '482913'],
  ['guillemets', { subject: 'Code', text: 'Votre code : «482913»' }, '482913'],
  ['cells w/ label cell', { subject: 'Security', html: '<table><tr><td>Code</td><td>482913</td></tr><tr><td>Order</td><td>771203</td></tr></table>' }, '482913'],
  ['card mask 4', { subject: 'Card', text: 'Your card **4821 was charged.' }, null],
  ['pin card', { subject: 'PIN', text: 'The PIN for card ending 4821 is 7734.' }, '7734'],
  ['otp in span digits with spaces &nbsp;', { subject: 'OTP', html: '<p>OTP</p><p><span>4</span>&nbsp;<span>8</span>&nbsp;<span>2</span>&nbsp;<span>9</span></p>' }, '4829'],
  ['code after colon line below 2', { subject: 'Verify', text: 'Your verification code is:\n\n\n   482913\n\nIt expires soon.' }, '482913'],
  ['code in subject with brand digits', { subject: 'Acme 360: 482913 is your code', text: 'Hi' }, '482913'],
  ['numbers record', { subject: 'Login code', text: 'Request 48213907 · Record 20250611 · Suite 1200 · 94105\nUse 582913 to sign in.' }, '582913'],
  ['6 digit date like', { subject: 'Your code', text: 'Date: 20250611. Code: 582913' }, '582913'],
  ['thai code', { subject: 'รหัสยืนยัน', text: 'รหัสยืนยันของคุณคือ 582913 รหัสสมาชิก 771203' }, '582913'],
  ['vi code', { subject: 'Mã xác nhận', text: 'Mã xác nhận của bạn là 582913. Mã khách hàng: 771203.' }, '582913'],
  ['he code', { subject: 'קוד אימות', text: 'קוד האימות שלך הוא 582913. מספר לקוח 771203.' }, '582913'],
  ['el code', { subject: 'Κωδικός επαλήθευσης', text: 'Ο κωδικός επαλήθευσης είναι 582913. Αριθμός πελάτη 771203.' }, '582913'],
  ['id code', { subject: 'Kode verifikasi', text: 'Kode verifikasi kamu: 582913. ID Pelanggan 771203.' }, '582913'],
  ['nl code', { subject: 'Verificatiecode', text: 'Je verificatiecode is 582913. Klantnummer 771203.' }, '582913'],
  ['sv code', { subject: 'Verifieringskod', text: 'Din verifieringskod är 582913. Kundnummer 771203.' }, '582913'],
  ['fi code', { subject: 'Vahvistuskoodi', text: 'Vahvistuskoodisi on 582913. Asiakasnumero 771203.' }, '582913'],
  ['cs code', { subject: 'Ověřovací kód', text: 'Váš ověřovací kód je 582913. Číslo zákazníka 771203.' }, '582913'],
  ['hu code', { subject: 'Megerősítő kód', text: 'A megerősítő kódod: 582913. Ügyfélszám: 771203.' }, '582913'],
  ['ar code digits', { subject: 'رمز التحقق', text: 'رمز التحقق: 582913\nرقم العميل: 771203' }, '582913'],
  ['zoom far passcode', { subject: 'Invitation: Weekly sync @ Mon 10:00', text: 'Ana is inviting you to a scheduled Zoom meeting.\n\nJoin Zoom Meeting\nhttps://zoom.example/j/84512345678?pwd=Ab12\n\nMeeting ID: 845 1234 5678\n\nOne tap mobile\n+16465588656,,84512345678# US\n\nPasscode: 482913\n' }, null],
  ['verification code mentioning meeting', { subject: 'Your verification code', text: 'Before your meeting with our advisor, verify your email.\nVerification code: 482913' }, '482913'],
];

for (const [name, input, otp] of codes) {
  test(`extract - hard code: ${name}`, (t) => {
    t.is(extract(input).otp, otp);
  });
}

/** Negatives in many languages: welcome, receipt, shipping, newsletter, notices, a meeting. */
const U = (w: string): string => `https://t.esp.example/c/${Buffer.from(w + 'xyz12').toString('base64').replace(/=/g, '')}Zk29`;
const btn = (w: string, label: string): string => `<a href="${U(w)}" style="background:#111;padding:12px 20px;color:#fff">${label}</a>`;
const foot = `<p><a href="${U('help')}">Help</a> · <a href="${U('unsub')}">Unsubscribe</a></p>`;
const negatives: [string, Input][] = [
  ['de welcome verified', { subject: 'Willkommen bei Acme!', html: `<p>Deine E-Mail-Adresse wurde bestätigt. Viel Spaß!</p>${btn('start', 'Jetzt loslegen')}${foot}` }],
  ['fr receipt', { subject: 'Votre reçu n° 482913', html: `<p>Merci pour votre commande n° 482913 du 12/05/2025. Total : 49,90 €.</p>${btn('order', 'Voir ma commande')}${foot}` }],
  ['es shipping', { subject: 'Tu pedido está en camino', html: `<p>Tu pedido 482913 llegará el 14 de mayo. Código postal 28013.</p>${btn('track', 'Seguir mi pedido')}${foot}` }],
  ['nl newsletter', { subject: 'Nieuws van Acme – mei', html: `<p>Ontdek onze nieuwe collectie. Gebruik kortingscode MEI20.</p>${btn('shop', 'Bekijk de collectie')}${foot}` }],
  ['pl 2fa enabled', { subject: 'Weryfikacja dwuetapowa włączona', html: `<p>Weryfikacja dwuetapowa została włączona na Twoim koncie.</p>${btn('settings', 'Ustawienia konta')}<p>To nie Ty? <a href="${U('lock')}">Zablokuj konto</a></p>` }],
  ['ru password changed', { subject: 'Пароль изменён', html: `<p>Пароль от вашего аккаунта был изменён 12.05.2025.</p><p>Если это были не вы, <a href="${U('reset')}">сбросьте пароль</a>.</p>` }],
  ['ja new login', { subject: '新しいログインがありました', html: `<p>2025年5月12日 10:32 に新しい端末からログインがありました。</p><p>心当たりのない場合は<a href="${U('pw')}">パスワードを変更</a>してください。</p>` }],
  ['zh statement', { subject: '您的5月账单', html: `<p>您的5月账单已生成，应还金额 ¥1,280.00。</p>${btn('bill', '查看账单')}${foot}` }],
  ['ko event', { subject: '이벤트 안내', html: `<p>회원님만을 위한 특별 이벤트! 쿠폰 코드 482913</p>${btn('event', '지금 확인하기')}${foot}` }],
  ['it meeting', { subject: 'Invito: riunione di team', text: 'Partecipa alla riunione Zoom\nhttps://zoom.example/j/84512345678\nID riunione: 845 1234 5678\nPasscode: 482913' }],
  ['tr email verified welcome', { subject: 'E-posta adresiniz doğrulandı', html: `<p>Teşekkürler! E-posta adresiniz doğrulandı.</p>${btn('go', 'Alışverişe başla')}${foot}` }],
  ['en verified welcome with login', { subject: 'You\'re verified!', html: `<p>Your email has been verified. You can now log in.</p>${btn('login', 'Log in')}${foot}` }],
  ['en account activated', { subject: 'Your account is active', html: `<p>Your account has been activated.</p>${btn('dash', 'Go to your account')}` }],
];

for (const [name, input] of negatives) {
  test(`extract - hard negative: ${name}`, (t) => {
    t.deepEqual(extract(input), { otp: null, verification_link: null });
  });
}
